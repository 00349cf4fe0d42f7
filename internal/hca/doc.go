// Package hca owns the firmware configuration of ConnectX HCAs: reading and
// changing NVConfig parameters with mlxconfig (NVIDIA MFT) or mstconfig
// (mstflint, same syntax and output), reading the firmware version with flint
// or mstflint, burning a firmware image with them after checking its PSID against the card's
// (burn.go), and the optional firmware reset with mlxfwreset or mstfwreset.
//
// It is pure Go and knows nothing of Terraform. Commands run through the
// Runner interface, so the same code drives a local shell in tests and an SSH
// session (internal/remote) on a GPU node.
//
// What it holds to:
//
//   - The parameter database (names, types, enum values, per-port _P1/_P2 and
//     per-module _M0/_M1 suffixes) is a text extract of mstflint's offline
//     sqlite database, embedded at build time (params.txt, regenerated with
//     go generate). Nothing at run time needs sqlite or mstflint.
//
//   - Values compare by meaning, not spelling: IB, ib, IB(1) and 1 are the
//     same LINK_TYPE_P1 value (Normalize, Equal). Enum names match
//     case-insensitively and numbers are read the way the tool reads them
//     (strtoul with base 0), because the tool is what finally accepts them.
//
//   - The device is the authority on what it supports. Validate checks
//     settings against the database ahead of time, but Apply does not refuse
//     names the database lacks (newer firmware has more); the tool's own
//     error is reported instead, with the device, the parameter and the text
//     the tool printed.
//
//   - Apply changes only what differs: it queries, diffs against the Next Boot
//     values (every set lands there), runs one set for the differing
//     parameters only, and nothing at all when nothing differs. A parameter
//     whose Next Boot value differs from its Current value is pending a reboot
//     or a firmware reset.
//
//   - ToolAuto ("") uses the family the node has (detect.go): the probe "command -v flint ||
//     command -v mstflint" is the first command of the batch that runs anyway, and every command
//     after it is written for both families behind the same test, so finding the tool costs no
//     round trip; results say which family ran (Reading.Tool, ApplyResult.Tool,
//     FirmwareUpdate.Tool, FirmwareInfo.Tool), for the caller to record. Neither on the node is
//     a *NoToolError saying what to install.
//
//   - Every argument put into a command line is shell-quoted (remote.Quote, the
//     provider's one quoter): the command string is handed to a shell on the node.
//
//   - What is recorded after a read is the card's Next Boot value, in the user's spelling when
//     it means the same (ReadBack), so that drift shows and spelling does not.
//
//   - A refresh is one command on the node (Read: the query and flint's query as one
//     remote.RunBatch), and so is an apply's first query with the firmware version beside it
//     (ApplyOptions.Firmware): on a fleet, each command is a session and a start of the node's
//     login shell, which cost more than the tools.
//
// It also owns what is said to people about an HCA: the forms of a tool path and a parameter
// name (ToolRE, ParamNameRE), the plan-time check of a set of settings (CheckSettings), the
// wording of what was set (ApplyResult.SetText) and of a firmware reset's outcome
// (ResetPendingResult's Outcome, Waiting, LevelsText), how a reset setting reads as options
// (ResetOptions, and ResetPendingLevel through it), and the detail of a failure with what to do about
// an SSH error reaching the card's node (Failure, SSHHint).
//
// The parsers follow the text layout of mlxconfig_ui.cpp (each value printed
// "%-20s"; a line starts with "*" for a modified value and "RO" for a read-only
// one) and also accept the older layout ("*        %-36s", values "%-16s").
//
// testdata/mlxconfig-double is a stand-in for the real tools, used by the tests
// here and by the SSH tests: it prints what mlxconfig prints, byte for byte,
// from a JSON state file (see its package comment).
package hca
