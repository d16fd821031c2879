import { DEBUG_ENV, type EnvVar, helpFooter, MODEL_ENV } from "./help-text.js";

/**
 * Every command's `--help` footer (examples, environment, exit codes), in one file so the commands
 * each add one line and the wording stays consistent. Exit codes come from src/cli/exit-codes.ts.
 */

const TEST_ENV: EnvVar[] = [
  ["DEVFLOW_TEST_TIMEOUT", "seconds per seam/regression/readiness test run (default 300; --test-timeout)"],
  [
    "DEVFLOW_OPEN_TRACE_CAP_MB",
    "what reading one seam run's strace record may keep (distinct paths), in MiB (default 64)",
  ],
  ["DEVFLOW_NO_OPEN_TRACE", "1: seam runs are not traced with strace (a caveat says so)"],
];
const CODER_ENV: EnvVar = [
  "<coder credentials>",
  "what the chosen --coder needs (JUNIE_API_KEY, ANTHROPIC_API_KEY, …): devflow doctor lists them",
];

export const ITERATE_HELP = helpFooter({
  examples: [
    'devflow iterate "the CSV import rejects emails with spaces around them"',
    'devflow iterate -r ../shop --coder claude -n 3 "fix the rounding of cart totals"',
    "devflow iterate --resume --task-id fix-the-rounding-of-cart-totals",
    'devflow iterate --replay cassette.json --json "…" | jq -c "select(.type==\\"result\\")"',
  ],
  env: [
    ...MODEL_ENV,
    ...TEST_ENV,
    ["DEVFLOW_MAX_REQUEST_BYTES", "the largest request taken (default 65536; --max-request-bytes)"],
    ["DEVFLOW_MAX_IDLE_VERIFY_CHECKOUTS", "verification checkouts kept for the next task (default 1)"],
    CODER_ENV,
    DEBUG_ENV,
  ],
  exits: [
    "completed",
    "failure",
    "usage",
    "blockedOrNeedsContext",
    "exhausted",
    "handedOff",
    "interrupted",
    "terminated",
  ],
});

export const DEMO_HELP = helpFooter({
  examples: ["devflow demo", "devflow demo --dir /tmp/devflow-demo --json"],
  env: [DEBUG_ENV],
  exits: ["completed", "failure", "usage", "blockedOrNeedsContext", "exhausted", "interrupted", "terminated"],
});

export const PLAN_HELP = helpFooter({
  examples: [
    'devflow plan "add tags to notes, filter by tag, show tag counts" -r ../notes',
    "devflow plan --resume <plan id> --yes -r ../notes",
    'devflow plan "add tags to notes" --yes --no-input -r ../notes',
    "devflow demo --plan",
    'devflow plan "add tags to notes" --yes --json -r ../notes',
  ],
  env: [...MODEL_ENV, ["VISUAL, EDITOR", "the editor [e]dit opens the plan in (default vi)"], DEBUG_ENV],
  exits: ["completed", "failure", "usage", "blockedOrNeedsContext", "exhausted", "interrupted", "terminated"],
});

export const ROUTE_HELP = helpFooter({
  examples: [
    'devflow route "why do invites expire after a week?"',
    'devflow route --replay cassette.json --json "plan team roles"',
  ],
  env: [...MODEL_ENV, ["DEVFLOW_MAX_REQUEST_BYTES", "the largest message taken (default 65536)"], DEBUG_ENV],
  exits: ["completed", "failure", "usage"],
});

export const CHAT_HELP = helpFooter({
  examples: [
    "devflow chat",
    "devflow chat --thread <id>",
    "printf 'fix the CSV import\\n/runs\\n' | devflow chat --yes --json",
    "devflow chat --yes --quiet --keep-worktree",
  ],
  env: [
    ...MODEL_ENV,
    ...TEST_ENV,
    [
      "DEVFLOW_PROGRESS_INTERVAL",
      "piped: seconds between a task's 'still running' lines (default 30; 0: none)",
    ],
    ["NO_COLOR / FORCE_COLOR", "colour of the task progress on stderr (--no-color)"],
    CODER_ENV,
    DEBUG_ENV,
  ],
  exits: [
    [0, "after /quit or the end of the input"],
    [1, "a turn failed (its error was printed; the chat went on)"],
    "usage",
    [130, "Ctrl-C at the prompt"],
    [143, "SIGTERM"],
  ],
});

export const DOCTOR_HELP = helpFooter({
  examples: ["devflow doctor", "devflow doctor --coder claude --json"],
  env: [...MODEL_ENV, CODER_ENV],
  exits: [
    [0, "the defaults (model endpoint and coder) can run"],
    [2, "something the defaults need is missing, or a bad flag; each line says how to fix it"],
  ],
});

export const PLAYGROUND_HELP = helpFooter({
  examples: [
    "devflow playground",
    "devflow playground --scenario-name demo --json",
    "devflow playground --record /tmp/cassettes --scenario-name iterate_error_fix",
  ],
  env: [...MODEL_ENV, CODER_ENV, DEBUG_ENV],
  exits: [[0, "every scenario passed"], [1, "a scenario failed (the table says which and why)"], "usage"],
});

export const CASSETTE_CHECK_HELP = helpFooter({
  examples: ["devflow cassette check scenarios/cassettes/demo.json"],
  env: [],
  exits: [
    [0, "every entry fits its role (warnings: scripted repair rounds)"],
    [1, "the file or an entry does not fit; one line per problem"],
  ],
});

export const RUNS_HELP = helpFooter({
  examples: [
    "devflow runs",
    "devflow runs -r ../shop --json  # tasks, then orphans: branches/checkouts of gone tasks",
  ],
  env: [DEBUG_ENV],
  exits: [[0, "the tasks were listed (none is fine)"], "failure", "usage"],
});

export const SHOW_HELP = helpFooter({
  examples: ["devflow show fix-the-rounding-of-cart-totals", "devflow show <task> -r ../shop --json"],
  env: [DEBUG_ENV],
  exits: [[0, "the task was shown"], "failure", [2, "no such task, or a bad flag"]],
});

export const CLEAN_HELP = helpFooter({
  examples: [
    "devflow clean --failed --dry-run",
    "devflow clean --older-than 7d",
    "devflow clean --task fix-the-rounding-of-cart-totals --branches",
    "devflow clean --orphans --dry-run",
    "devflow clean --idle --older-than 2d",
    "devflow clean --clones ~/devflow-clones --failed",
  ],
  env: [DEBUG_ENV],
  exits: [
    [0, "the selected tasks were removed (or listed with --dry-run)"],
    "failure",
    [2, "no selection, a running task named, or a bad flag"],
  ],
});

// The daemon's queue commands (ADR 0051): they all work on the data root DEVFLOW_HOME names.
const DATA_ROOT_ENV: EnvVar = ["DEVFLOW_HOME", "the daemon's data root (default ~/.devflow)"];
const QUEUE_FAILURE: [number, string] = [
  1,
  "an unexpected failure (e.g. a file of the data root unreadable)",
];

export const SUBMIT_HELP = helpFooter({
  examples: [
    "devflow submit fix-cart-rounding.md",
    "DEVFLOW_HOME=/srv/devflow devflow submit ticket.md --json",
  ],
  env: [DATA_ROOT_ENV, DEBUG_ENV],
  exits: [
    [0, "the ticket is in inbox/"],
    QUEUE_FAILURE,
    [2, "plan-lint refused the ticket (it is in failed/, each error printed), or a bad flag"],
  ],
});

export const LIST_HELP = helpFooter({
  examples: ["devflow list", "devflow list --state failed --json"],
  env: [DATA_ROOT_ENV, DEBUG_ENV],
  exits: [[0, "the tickets were listed (none is fine)"], QUEUE_FAILURE, "usage"],
});

export const STATUS_HELP = helpFooter({
  examples: ["devflow status", "devflow status fix-cart-rounding-3f9a1c --json"],
  env: [DATA_ROOT_ENV, DEBUG_ENV],
  exits: [[0, "the queue or the ticket was shown"], QUEUE_FAILURE, [2, "no such ticket, or a bad flag"]],
});

export const SCHEMA_HELP = helpFooter({
  examples: ["devflow schema", "devflow schema > ticket.schema.json"],
  env: [DEBUG_ENV],
  exits: ["completed", "usage"],
});

export const CANCEL_HELP = helpFooter({
  examples: ["devflow cancel fix-cart-rounding-3f9a1c"],
  env: [DATA_ROOT_ENV, DEBUG_ENV],
  exits: [
    [0, "the ticket is in failed/, status cancelled; or, running, its cancel was requested"],
    QUEUE_FAILURE,
    [2, "no such ticket, or it already finished"],
  ],
});

export const RETRY_HELP = helpFooter({
  examples: ["devflow retry fix-cart-rounding-3f9a1c", "devflow retry fix-cart-rounding-3f9a1c --json"],
  env: [DATA_ROOT_ENV, DEBUG_ENV],
  exits: [
    [0, "the ticket is back in inbox/"],
    QUEUE_FAILURE,
    [2, "no such ticket, it did not fail, or it still fails plan-lint (each error printed)"],
  ],
});

export const DATA_HELP = helpFooter({
  examples: ["devflow data", "DEVFLOW_HOME=/srv/devflow devflow data --json"],
  env: [DATA_ROOT_ENV],
  exits: [[0, "the tree was printed (or its absence)"], QUEUE_FAILURE, "usage"],
});

export const DAEMON_HELP = helpFooter({
  examples: [
    "devflow daemon",
    "DEVFLOW_HOME=/srv/devflow devflow daemon --coder claude",
    "devflow daemon --replay cassette.json   # offline: every ticket replays the cassette",
    "devflow daemon --log-format json        # stderr gets the JSON lines of logs/daemon.log",
  ],
  env: [DATA_ROOT_ENV, DEBUG_ENV],
  exits: [
    [0, "stopped gracefully (SIGTERM/SIGINT), or another daemon already works on the data root"],
    QUEUE_FAILURE,
    [2, "a bad flag, an invalid config file, or a worker.healthPort that cannot be bound"],
    [130, "stopped at once by a second SIGINT"],
    [143, "stopped at once by a second SIGTERM"],
  ],
});
