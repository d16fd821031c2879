import { realpathSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  extraWritableDirs,
  type HostMount,
  hostMounts,
  MAX_KEPT_PER_TEMP,
  PRIVATE_TMP_SIZE_ENV,
  privateTmpSize,
  type SealInputs,
  sealFor,
  type TempRoot,
  WRITABLE_DIRS_ENV,
  within,
} from "./mount-seal.js";

const line = (id: number, parent: number, path: string, opts: string, type: string) =>
  `${id} ${parent} 0:${id} / ${path} ${opts} shared:${id} - ${type} src rw`;

describe("hostMounts", () => {
  it("decodes mountinfo's octal escapes and keeps the mount listed last where mounts are stacked", () => {
    const info = [
      line(1, 0, "/", "rw,relatime", "ext4"),
      line(2, 1, "/dev/shm", "rw,nosuid", "tmpfs"),
      line(3, 2, "/dev/shm", "ro,nosuid", "tmpfs"),
      line(4, 1, "/mnt/with\\040space\\011tab\\012nl\\134bs", "rw", "ext4"),
      line(5, 1, "/proc", "rw", "proc"),
      "garbage line",
      "",
    ].join("\n");
    expect(hostMounts(info)).toEqual([
      { path: "/", type: "ext4", readOnly: false },
      { path: "/dev/shm", type: "tmpfs", readOnly: true },
      { path: "/mnt/with space\ttab\nnl\\bs", type: "ext4", readOnly: false },
      { path: "/proc", type: "proc", readOnly: false },
    ]);
  });

  it("reads this machine's table (the root is in it)", () => {
    expect(hostMounts().some((m) => m.path === "/")).toBe(true);
  });
});

describe("within", () => {
  it("is a path prefix by whole names", () => {
    expect(within("/tmp/a", "/tmp")).toBe(true);
    expect(within("/tmp", "/tmp")).toBe(true);
    expect(within("/tmpx", "/tmp")).toBe(false);
    expect(within("/anything", "/")).toBe(true);
  });
});

const TMP: TempRoot = { path: "/tmp", how: "overlay", mode: 0o1777 };
const SHM: TempRoot = { path: "/dev/shm", how: "empty", mode: 0o1777 };
const inputs = (over: Partial<SealInputs> = {}): SealInputs => ({
  repo: "/tmp/t/repo",
  hide: "/tmp/t/repo/.devflow",
  dependencies: ["/tmp/t/repo/node_modules", "/tmp/t/node_modules"],
  writable: ["/tmp/devflow-scratch-1-abc"],
  runCovered: true,
  ...over,
});
const mount = (path: string, type = "ext4", readOnly = false): HostMount => ({ path, type, readOnly });

describe("sealFor", () => {
  it("makes /tmp private with the plan's outermost dirs inside it bound back, and /dev/shm an empty tmpfs", () => {
    const seal = sealFor(inputs(), [], [TMP, SHM]);
    expect(seal.privateTemps).toEqual([
      { root: TMP, keep: ["/tmp/t/repo", "/tmp/t/node_modules", "/tmp/devflow-scratch-1-abc"] },
      { root: SHM, keep: [] },
    ]);
    // The scratch dir comes back with /tmp (bound before anything is read-only): no bind of its own.
    expect(seal.bindWritable).toEqual([]);
    expect(sealFor(inputs({ writable: ["/srv/scratch"] }), [], [TMP]).bindWritable).toEqual(["/srv/scratch"]);
  });

  it("leaves a temp root that lies inside a plan dir, or needs more dirs bound back than it can hold, to the read-only pass", () => {
    const inside = sealFor(
      inputs({ repo: "/srv/repo", hide: "/srv/repo/.devflow" }),
      [],
      [{ path: "/srv/repo/tmp", how: "overlay", mode: 0o1777 }],
    );
    expect(inside.privateTemps).toEqual([]);
    const many = Array.from({ length: MAX_KEPT_PER_TEMP + 1 }, (_, i) => `/tmp/w${i}`);
    const crowded = sealFor(inputs({ writable: many, dependencies: [] }), [mount("/tmp", "tmpfs")], [TMP]);
    expect(crowded.privateTemps).toEqual([]);
    expect(crowded.readOnly).toEqual(["/tmp"]);
  });

  it("makes read-only every writable mount the run can reach, kernel interfaces too, but not /proc, terminals, cgroups, a mount it cannot reach or a writable dir", () => {
    const table = [
      mount("/"),
      mount("/home", "btrfs"),
      mount("/usr", "ext4", true),
      mount("/proc", "proc"),
      mount("/proc/sys/fs/binfmt_misc", "binfmt_misc"),
      mount("/sys", "sysfs"),
      mount("/sys/fs/cgroup", "tmpfs"),
      mount("/sys/fs/cgroup/unified", "cgroup2"),
      mount("/dev", "devtmpfs"),
      mount("/dev/pts", "devpts"),
      mount("/run", "tmpfs"),
      mount("/run/user/1000", "tmpfs"),
      mount("/tmp", "tmpfs"),
      mount("/tmp/other", "ext4"),
      mount("/tmp/t/repo/mnt", "ext4"),
      mount("/srv/scratch", "ext4"),
    ];
    const seal = sealFor(inputs({ writable: ["/srv/scratch"] }), table, [TMP]);
    expect(seal.readOnly).toEqual(["/", "/home", "/sys", "/sys/fs/cgroup", "/dev"]);
    // With /run seen as it is (DEVFLOW_EXPOSE_RUN=1) its mounts are reachable: read-only too.
    expect(sealFor(inputs({ writable: ["/srv/scratch"], runCovered: false }), table, [TMP]).readOnly).toEqual(
      ["/", "/home", "/sys", "/sys/fs/cgroup", "/dev", "/run", "/run/user/1000"],
    );
  });
});

describe("privateTmpSize", () => {
  it("is 25% of RAM unless set; takes sizes and shares; refuses anything else in one line", () => {
    expect(privateTmpSize({})).toBe("25%");
    expect(privateTmpSize({ [PRIVATE_TMP_SIZE_ENV]: " 2g " })).toBe("2g");
    expect(privateTmpSize({ [PRIVATE_TMP_SIZE_ENV]: "512M" })).toBe("512M");
    expect(privateTmpSize({ [PRIVATE_TMP_SIZE_ENV]: "100%" })).toBe("100%");
    for (const bad of ["0", "0k", "0%", "150%", "2gb", "-1", "1,size=9g", "99999999999999999999g"])
      expect(() => privateTmpSize({ [PRIVATE_TMP_SIZE_ENV]: bad })).toThrow(
        /^DEVFLOW_PRIVATE_TMP_SIZE must be a size such as 2g, 512m or 25% \(of RAM\), got /,
      );
  });
});

describe("extraWritableDirs", () => {
  it("takes absolute existing directories by real path, and refuses anything else in one line", () => {
    expect(extraWritableDirs({})).toEqual([]);
    expect(extraWritableDirs({ [WRITABLE_DIRS_ENV]: "/tmp: /tmp :" })).toEqual([realpathSync("/tmp")]);
    for (const bad of ["relative/dir", "/no/such/devflow-dir", "/"])
      expect(() => extraWritableDirs({ [WRITABLE_DIRS_ENV]: bad })).toThrow(
        /^DEVFLOW_WRITABLE_DIRS names ".*": give absolute paths of existing directories other than \/, separated by ":"$/,
      );
  });
});
