import Foundation
import Synchronization

/// A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary folder, `postgres`
/// on a free port of 127.0.0.1 (and a Unix socket in that folder only), run as an unprivileged
/// user (the `postgres` system user when the tests run as root, since PostgreSQL refuses root).
/// One cluster serves a whole test process: ``shared`` starts it on first use, and it is
/// stopped and removed when the process exits; a cluster left by a test process that died is
/// stopped by the next one. Each test gets a database of its own (``createDatabase()``).
///
/// A cluster that cannot start is an error the PostgreSQL tests report as a failure: they are
/// not skipped. Only outside CI may `OFFER_SIGNER_TEST_POSTGRESQL=off` turn them off, and the
/// tests then say so.
public final class TestPostgreSQLCluster: Sendable {
    /// The cluster of this test process, started on first use; or why it could not start.
    public static let shared: Result<TestPostgreSQLCluster, ClusterError> = start(suffix: "", durable: false)

    /// A cluster of its own, for a test that stops and starts the server (the shared one
    /// serves other tests meanwhile). `destroy()` stops and removes it; so does the exit.
    /// - Parameter durable: fsync on, as in production (for measurements).
    public static func startPrivate(durable: Bool = false) throws(ClusterError) -> TestPostgreSQLCluster {
        let number = privateClusters.withLock { count in
            count += 1
            return count
        }
        return try start(suffix: "-\(number)", durable: durable).get()
    }

    /// Stops the server at once and removes its folder.
    public func destroy() {
        _ = try? run("pg_ctl", ["-D", "\(folder)/data", "-m", "immediate", "-w", "-t", "30", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
        atExitClusters.withLock { $0.removeAll { $0 === self } }
    }

    /// The folder holding the data directory, the socket and the server log.
    public let folder: String
    public let port: Int
    /// `initdb`, `pg_ctl`, `postgres`, `createdb`…
    public let binaries: String
    /// The superuser the tests connect as (trust authentication, 127.0.0.1 only).
    public static let user = "offer_signer_test"
    private let runAsPostgres: Bool
    /// Whether commits reach the disk (fsync on), as in production; off by default for speed.
    private let durable: Bool
    private let databases = Mutex(0)

    /// Whether the PostgreSQL tests are turned off for this run (never in CI).
    public static var disabled: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["OFFER_SIGNER_TEST_POSTGRESQL"] == "off" && environment["CI"] == nil
    }

    private init(folder: String, port: Int, binaries: String, runAsPostgres: Bool, durable: Bool) {
        self.durable = durable
        self.folder = folder
        self.port = port
        self.binaries = binaries
        self.runAsPostgres = runAsPostgres
    }

    /// The URL of `database` in this cluster.
    public func url(database: String) -> String {
        "postgresql://\(Self.user)@127.0.0.1:\(port)/\(database)"
    }

    /// Creates an empty database of its own for one test and returns its name.
    public func createDatabase() throws(ClusterError) -> String {
        let number = databases.withLock { count in
            count += 1
            return count
        }
        let name = "test_\(ProcessInfo.processInfo.processIdentifier)_\(number)"
        try run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", Self.user, name])
        return name
    }

    /// Drops a database made by ``createDatabase()`` (closing its connections first).
    public func dropDatabase(_ name: String) {
        _ = try? run("dropdb", ["-h", "127.0.0.1", "-p", String(port), "-U", Self.user, "--force", "--if-exists", name])
    }

    /// Stops the server as a crash would (`pg_ctl stop -m immediate`): no checkpoint, every
    /// connection cut.
    public func stopImmediately() throws(ClusterError) {
        try run("pg_ctl", ["-D", "\(folder)/data", "-m", "immediate", "-w", "-t", "30", "stop"])
    }

    /// Freezes (SIGSTOP) or thaws (SIGCONT) every process of the server: a server that keeps
    /// its connections open and answers nothing, as one behind a dead network path does.
    public func signalServer(_ signal: Int32) {
        guard let text = try? String(contentsOfFile: "\(folder)/data/postmaster.pid", encoding: .utf8),
              let line = text.split(separator: "\n").first, let postmaster = Int32(line) else { return }
        let children = (try? Self.execute(["/usr/bin/pgrep", "-P", String(postmaster)])) ?? ""
        for pid in [postmaster] + children.split(separator: "\n").compactMap({ Int32($0) }) { kill(pid, signal) }
    }

    /// Starts the server (again), waiting until it accepts connections.
    public func startServer() throws(ClusterError) {
        try run("pg_ctl", ["-D", "\(folder)/data", "-l", "\(folder)/server.log", "-w", "-t", "60", "-o",
                           "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c max_connections=200"
                               + (durable ? "" : " -c fsync=off -c full_page_writes=off"),
                           "start"])
    }

    /// Runs `psql -c` on `database` and returns its unaligned output (for tests that tamper
    /// with a table behind the store's back).
    @discardableResult
    public func psql(_ database: String, _ sql: String) throws(ClusterError) -> String {
        try run("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", Self.user, "-d", database, "-X", "-A", "-t",
                         "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    /// The last lines of the server log, for a failure message.
    public func logTail() -> String {
        let log = (try? String(contentsOfFile: "\(folder)/server.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").suffix(20).joined(separator: "\n")
    }

    private static func start(suffix: String, durable: Bool) -> Result<TestPostgreSQLCluster, ClusterError> {
        guard !disabled else { return .failure(.disabled) }
        do {
            stopAbandonedClusters()
            let binaries = try findBinaries()
            let runAsPostgres = getuid() == 0
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("offer-signer-pg-\(ProcessInfo.processInfo.processIdentifier)\(suffix)").path
            try? FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            if runAsPostgres {
                guard let account = getpwnam("postgres") else { throw ClusterError.noUnprivilegedUser }
                guard chown(folder, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                    throw ClusterError.failed(command: "chown \(folder)", output: String(cString: strerror(errno)))
                }
            }
            let cluster = TestPostgreSQLCluster(folder: folder, port: try freePort(), binaries: binaries, runAsPostgres: runAsPostgres, durable: durable)
            try cluster.run("initdb", ["-D", "\(folder)/data", "-U", user, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"])
            try cluster.startServer()
            registerStopAtExit(cluster)
            return .success(cluster)
        } catch let error as ClusterError {
            return .failure(error)
        } catch {
            return .failure(.failed(command: "start", output: "\(error)"))
        }
    }

    /// Runs one of the cluster's binaries (as `postgres` when root), throwing with its output
    /// when it fails.
    @discardableResult
    public func run(_ tool: String, _ arguments: [String]) throws(ClusterError) -> String {
        let path = "\(binaries)/\(tool)"
        let command = runAsPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments
        return try Self.execute(command)
    }

    /// Runs `command` with `posix_spawn` and `waitpid`, its output going to a file, every other
    /// descriptor closed in the child (by a bash that then runs it). (Foundation's `Process` notices a child's exit through a
    /// descriptor the child inherits; `pg_ctl start` leaves the server holding it, so that exit
    /// would never be noticed, and the server would hold any other process's such descriptor.)
    static func execute(_ command: [String]) throws(ClusterError) -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("offer-signer-pg-output-\(UUID().uuidString)").path
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // bash closes every descriptor above 2 it inherited, then runs the command from /.
        let closeAndRun = #"cd / && for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done; exec "$@""#
        let arguments = (["/bin/bash", "-c", closeAndRun, "bash"] + command).map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/bash", &actions, nil, arguments, environ)
        guard status == 0 else { throw .failed(command: command.joined(separator: " "), output: String(cString: strerror(status))) }
        var exit: Int32 = 0
        while waitpid(pid, &exit, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // Exited normally with status 0.
        guard exit & 0x7f == 0, (exit >> 8) & 0xff == 0 else { throw .failed(command: command.joined(separator: " "), output: text) }
        return text
    }

    /// The folder of `initdb` and `pg_ctl`: `pg_config --bindir`, else the newest
    /// /usr/lib/postgresql/N/bin.
    static func findBinaries() throws(ClusterError) -> String {
        if let bindir = try? execute(["/usr/bin/pg_config", "--bindir"]).trimmingCharacters(in: .whitespacesAndNewlines),
           FileManager.default.isExecutableFile(atPath: "\(bindir)/initdb") {
            return bindir
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.compactMap(Int.init).sorted(by: >) {
            let bindir = "/usr/lib/postgresql/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: "\(bindir)/initdb") { return bindir }
        }
        throw .notInstalled
    }

    private static func freePort() throws(ClusterError) -> Int {
        guard let port = Loopback.freePort() else { throw .failed(command: "bind 127.0.0.1:0", output: String(cString: strerror(errno))) }
        return port
    }

    /// Stops and removes the clusters of test processes that no longer run.
    private static func stopAbandonedClusters() {
        let temporary = FileManager.default.temporaryDirectory.path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix("offer-signer-pg-") {
            let owner = name.dropFirst("offer-signer-pg-".count).prefix { $0 != "-" }
            guard let pid = Int32(owner), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let folder = "\(temporary)/\(name)"
            if let text = try? String(contentsOfFile: "\(folder)/data/postmaster.pid", encoding: .utf8),
               let line = text.split(separator: "\n").first, let postmaster = Int32(line) {
                kill(postmaster, SIGQUIT)
                usleep(200_000)
                kill(postmaster, SIGKILL)
            }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    private static func registerStopAtExit(_ cluster: TestPostgreSQLCluster) {
        atExitClusters.withLock { $0.append(cluster) }
        guard !atExitRegistered.exchange(true, ordering: .sequentiallyConsistent) else { return }
        atexit {
            for cluster in atExitClusters.withLock({ $0 }) {
                _ = try? cluster.run("pg_ctl", ["-D", "\(cluster.folder)/data", "-m", "immediate", "-w", "-t", "30", "stop"])
                try? FileManager.default.removeItem(atPath: cluster.folder)
            }
        }
    }
}

/// The clusters `atexit` stops.
private let atExitClusters = Mutex<[TestPostgreSQLCluster]>([])
private let atExitRegistered = Atomic<Bool>(false)
/// Private clusters started so far (for their folder names).
private let privateClusters = Mutex(0)

/// Why the test cluster is not there.
public enum ClusterError: Error, CustomStringConvertible, Sendable {
    /// `OFFER_SIGNER_TEST_POSTGRESQL=off` outside CI.
    case disabled
    /// No PostgreSQL server binaries (`make deps` installs `postgresql`).
    case notInstalled
    /// Running as root with no `postgres` user to run the server as.
    case noUnprivilegedUser
    case failed(command: String, output: String)

    public var description: String {
        switch self {
        case .disabled: "the PostgreSQL tests are off (OFFER_SIGNER_TEST_POSTGRESQL=off)"
        case .notInstalled: "PostgreSQL's server is not installed (run make deps: it installs postgresql and libpq-dev)"
        case .noUnprivilegedUser: "running as root, but there is no 'postgres' user to run the test cluster as"
        case .failed(let command, let output): "\(command) failed: \(output)"
        }
    }
}
