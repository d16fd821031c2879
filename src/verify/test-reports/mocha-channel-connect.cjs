// devflow's `--require` for mocha: opens the connection to devflow's report channel (ADR 0089)
// before mocha loads any spec file, so a test file's code cannot be the first to connect, nor end
// mocha before devflow's reporter connected. mocha-channel-reporter.cjs sends over it. In a
// `--parallel` worker the address is gone (report-channel-client.cjs) and nothing connects.
// Loaded by mocha from devflow's install, never from the checkout under test.
"use strict";
if (process.env.DEVFLOW_REPORT_SOCKET) require("./report-channel-client.cjs").earlyReportConnection();
