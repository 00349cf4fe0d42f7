// Package remote is the provider's SSH transport to the machines it changes (subnet manager
// hosts, GPU nodes): dial with a checked host key, run a command, read a file, and replace a set
// of files in one directory atomically, keeping the previous versions so they can be restored.
// It is pure Go on golang.org/x/crypto/ssh and imports nothing of Terraform or OpenSM; the
// OpenSM push flow (signal or restart, verify, roll back) is built on top of it elsewhere.
//
// Invariants:
//   - Host keys are always checked against the configured known_hosts file. There is no
//     insecure mode: an unknown host and a changed key are both refused with a HostKeyError
//     that says what to do. Host key algorithms are pinned to the types that known_hosts records
//     for the host, so a server that also has a key of another type cannot make the check fail
//     spuriously (or, worse, make users "fix" it by trusting whatever is offered).
//   - Secrets never appear in errors or in formatted values: Config's String/GoString redact the
//     private key and passphrase, key parse errors are replaced by fixed messages, and every
//     error leaving Dial is scrubbed of any fragment of them. File contents travel on the
//     session's stdin, never on a command line (where ps and logs would see them).
//   - WriteFiles is all or nothing: either every file has its new content (each replaced by a
//     rename, so readers only ever see a complete old or new file) and the previous versions
//     are kept as <name>.prev, or the directory is left exactly as it was (same files, same
//     inodes, same .prev files, no temporaries). The commit runs as one remote shell script that
//     ignores SIGHUP and SIGPIPE, so a dropped connection cannot stop it halfway.
//   - One writer per host: WriteFiles and Restore hold a process-wide lock keyed by host:port,
//     and callers hold the same lock across a whole push with Client.Lock.
//   - A command whose context ends is killed on the host with its whole process group (the SSH
//     "signal" request is not relied on: OpenSSH ignores it for root logins).
//   - The remote side needs only POSIX sh and the usual utilities (cat, mv, rm, ln, cp, chmod,
//     wc); no sftp subsystem. Commands run under /bin/sh whatever the login shell is, but the
//     login shell starts them, so it must be POSIX-like, and, as for scp, its startup files must
//     not print to stdout.
//
// It also owns what an ssh_host string means (SplitHost, EndpointKey, HostRE, HostPortRE,
// CheckHostPort), how layered SSH settings become a Config (ConfigFor, refusing a missing setting
// or a known_hosts file that cannot be read: CheckKnownHostsFile; these refusals name the
// settings as the provider's configuration spells them, so that they say what to set), and the
// classification of Dial's errors (Unreachable, KeyRefused), so that callers decide what to
// tell people without reading error text.
//
// Dial makes one connection for its caller, who closes it: right for an operation that reaches a
// few hosts and holds its connection for its whole run (an OpenSM push). A Pool shares one
// connection per host, port, user and identity (key, passphrase, known_hosts file) among the
// callers of a process, for operations that are many per host and short (the HCAs of a node read
// in parallel at every refresh): the host key is checked when the connection is made, exactly as
// Dial checks it; the sessions on a connection stay within sshd's MaxSessions; a connection found
// dead is dialled again once before a command runs; idle connections close after a while, and
// Close ends them all when the provider stops. The per-host lock is the writers' alone: reads on
// a shared connection do not wait for it.
//
// RunBatch runs several commands as one command line, with each command's output and status
// given back apart, so that what one operation needs of a host costs one session and one start
// of the remote login shell, not one per command.
package remote
