import Foundation
import Synchronization

/// A throwaway highly available PostgreSQL for the tests: etcd and three PostgreSQL nodes
/// managed by Patroni (Debian's `etcd-server`, `patroni` and `postgresql`), all on free ports
/// of 127.0.0.1, in a temporary folder, run as the `postgres` user. A program of its own
/// (``PatroniSupervisor``) starts and reaps every process of the cluster and, when the test
/// process closes its standard input or dies, kills them all and removes the folder, so a
/// failing (or killed) test leaves nothing behind.
///
/// The cluster's settings are the README's ("High availability"): a leader key of 10 s,
/// `primary_start_timeout: 0` (a crashed primary fails over instead of being restarted in
/// place), `use_pg_rewind` with `wal_log_hints`, and `synchronous_mode` unless asked
/// otherwise. Tests connect as ``TestPostgreSQLCluster/user`` with trust authentication.
public final class TestPatroniCluster: @unchecked Sendable { // @unchecked: the supervisor's pipes are used under `commands`
    /// One PostgreSQL node and its Patroni.
    public struct Node: Sendable, Equatable, CustomStringConvertible {
        /// `node1`, `node2`, `node3`.
        public let name: String
        /// PostgreSQL's port.
        public let port: Int
        /// Patroni's REST API port.
        public let restPort: Int
        /// PostgreSQL's data directory.
        public let dataDirectory: String

        public var description: String { "\(name) (port \(port))" }
    }

    /// A member as Patroni's `/cluster` lists it.
    public struct Member: Sendable, CustomStringConvertible {
        public let name: String
        /// `leader`, `sync_standby`, `replica`.
        public let role: String
        /// `running`, `streaming`, `stopped`, `starting`, …
        public let state: String
        public let timeline: Int?

        public var isLeader: Bool { role == "leader" && state == "running" }
        public var isReplicaRunning: Bool { role != "leader" && ["running", "streaming"].contains(state) }
        public var description: String { "\(name) \(role) \(state) tl \(timeline.map(String.init) ?? "-")" }
    }

    public let folder: String
    public let nodes: [Node]
    /// Whether the cluster was started with Patroni's `synchronous_mode`.
    public let synchronous: Bool
    private let supervisor: pid_t
    private let commands: Mutex<(input: Int32, output: Int32)?>
    private let databases = Mutex(0)

    /// Whether the HA tests are off for this run: when the PostgreSQL tests are
    /// (``TestPostgreSQLCluster/disabled``), or with `OFFER_SIGNER_TEST_HA=off`, never in CI.
    public static var disabled: Bool {
        let environment = ProcessInfo.processInfo.environment
        return TestPostgreSQLCluster.disabled || (environment["OFFER_SIGNER_TEST_HA"] == "off" && environment["CI"] == nil)
    }

    /// Starts etcd and three nodes and waits (up to 90 s) until one leads and the other two
    /// replicate (one of them as the synchronous standby when `synchronous`).
    /// - Parameter durable: fsync on, as in production (for measurements); off by default.
    public static func start(synchronous: Bool = true, durable: Bool = false) throws(ClusterError) -> TestPatroniCluster {
        guard !disabled else { throw .disabled }
        for tool in ["/usr/bin/patroni", "/usr/bin/etcd", "/usr/bin/python3"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw .failed(command: tool, output: "not installed (make deps installs patroni and etcd-server)")
        }
        let binaries = try TestPostgreSQLCluster.findBinaries()
        guard let account = getpwnam("postgres") else { throw .noUnprivilegedUser }
        let number = clusters.withLock { count in
            count += 1
            return count
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("offer-signer-ha-\(ProcessInfo.processInfo.processIdentifier)-\(number)").path
        try? FileManager.default.removeItem(atPath: folder)
        var ports: [Int] = []
        for _ in 0..<8 {
            guard let port = Loopback.freePort(), !ports.contains(port) else {
                throw .failed(command: "bind 127.0.0.1:0", output: "no free port")
            }
            ports.append(port)
        }
        let nodes = (1...3).map { index in
            Node(name: "node\(index)", port: ports[2 + 2 * (index - 1)], restPort: ports[3 + 2 * (index - 1)],
                 dataDirectory: "\(folder)/node\(index)")
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try etcdScript(folder: folder, clientPort: ports[0], peerPort: ports[1])
                .write(toFile: "\(folder)/etcd.sh", atomically: true, encoding: .utf8)
            for node in nodes {
                try configuration(node, folder: folder, etcdPort: ports[0], binaries: binaries, synchronous: synchronous, durable: durable)
                    .write(toFile: "\(folder)/\(node.name).yml", atomically: true, encoding: .utf8)
            }
            try PatroniSupervisor.program.write(toFile: "\(folder)/supervisor.py", atomically: true, encoding: .utf8)
        } catch {
            throw .failed(command: "write \(folder)", output: "\(error)")
        }
        for path in [folder] + ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).map({ "\(folder)/\($0)" }) {
            chown(path, account.pointee.pw_uid, account.pointee.pw_gid)
        }
        let (supervisor, input, output) = try spawnSupervisor(folder: folder)
        let cluster = TestPatroniCluster(folder: folder, nodes: nodes, synchronous: synchronous, supervisor: supervisor,
                                         input: input, output: output)
        guard cluster.readLine() == "ok" else {
            cluster.destroy()
            throw .failed(command: "supervisor.py", output: "it did not start")
        }
        do {
            _ = try cluster.waitUntil(seconds: 90, "a leader and two replicas") { members in
                members.count == 3 && members.contains(where: \.isLeader) && members.filter(\.isReplicaRunning).count == 2
                    && (!synchronous || members.contains { $0.role == "sync_standby" })
            }
        } catch {
            let logs = cluster.logTail()
            cluster.destroy()
            throw .failed(command: "start the Patroni cluster", output: "\(error)\n\(logs)")
        }
        return cluster
    }

    private init(folder: String, nodes: [Node], synchronous: Bool, supervisor: pid_t, input: Int32, output: Int32) {
        self.folder = folder
        self.nodes = nodes
        self.synchronous = synchronous
        self.supervisor = supervisor
        self.commands = Mutex((input, output))
    }

    deinit { destroy() }

    /// Stops every process of the cluster (SIGKILL) and removes its folder; waits for it.
    public func destroy() {
        guard let pipes = commands.withLock({ pipes in defer { pipes = nil }; return pipes }) else { return }
        close(pipes.input)
        close(pipes.output)
        var status: Int32 = 0
        while waitpid(supervisor, &status, 0) < 0 && errno == EINTR {}
    }

    /// The libpq URL of `database` over all three nodes, read-write: libpq tries each host in
    /// turn and keeps the first that accepts writes (the primary).
    public func url(database: String) -> String {
        "postgresql://\(TestPostgreSQLCluster.user)@" + nodes.map { "127.0.0.1:\($0.port)" }.joined(separator: ",")
            + "/\(database)?target_session_attrs=read-write"
    }

    /// The URL of `database` on `node` alone.
    public func url(database: String, node: Node) -> String {
        "postgresql://\(TestPostgreSQLCluster.user)@127.0.0.1:\(node.port)/\(database)"
    }

    /// Creates an empty database (on the leader), waits until every node has replayed it (a
    /// libpq multi-host URL stops at the first host that refuses the database, rather than
    /// trying the next) and returns its name.
    public func createDatabase() throws(ClusterError) -> String {
        let number = databases.withLock { count in
            count += 1
            return count
        }
        let name = "ha_\(number)"
        try psql(try leader(), database: "postgres", "CREATE DATABASE \(name)")
        let deadline = Date().addingTimeInterval(60)
        for node in nodes {
            while (try? psql(node, database: "postgres", "SELECT count(*) FROM pg_database WHERE datname = '\(name)'"))?
                .trimmingCharacters(in: .whitespacesAndNewlines) != "1" {
                guard Date() < deadline else { throw .failed(command: "wait for \(name) on \(node)", output: logTail()) }
                usleep(100_000)
            }
        }
        return name
    }

    /// Runs `sql` with `psql` on `node` and returns its unaligned output.
    @discardableResult
    public func psql(_ node: Node, database: String, _ sql: String) throws(ClusterError) -> String {
        let binaries = try TestPostgreSQLCluster.findBinaries()
        return try TestPostgreSQLCluster.execute(["\(binaries)/psql", "-h", "127.0.0.1", "-p", String(node.port), "-U",
                                                  TestPostgreSQLCluster.user, "-d", database, "-X", "-A", "-t", "-v",
                                                  "ON_ERROR_STOP=1", "-c", sql])
    }

    /// The members as the first Patroni that answers lists them; empty when none answers.
    public func members() -> [Member] {
        for node in nodes {
            let socket = Loopback.connected(port: node.restPort, timeout: 3)
            guard socket >= 0 else { continue }
            defer { close(socket) }
            guard let text = Self.httpBody(socket: socket, port: node.restPort, "GET", "/cluster"),
                  let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let list = json["members"] as? [[String: Any]] else { continue }
            return list.map { item in
                Member(name: item["name"] as? String ?? "", role: item["role"] as? String ?? "",
                       state: item["state"] as? String ?? "", timeline: item["timeline"] as? Int)
            }
        }
        return []
    }

    /// The node that leads now (waiting up to 60 s for one, other than `excluding`).
    public func leader(excluding: Node? = nil) throws(ClusterError) -> Node {
        let members = try waitUntil(seconds: 60, "a leader") { members in
            members.contains { $0.isLeader && $0.name != excluding?.name }
        }
        let name = members.first { $0.isLeader && $0.name != excluding?.name }!.name
        return nodes.first { $0.name == name }!
    }

    /// Waits (polling `/cluster` every 100 ms) until `condition` holds for the members; throws
    /// after `seconds`, saying what it waited for and what it saw last.
    @discardableResult
    public func waitUntil(seconds: Double, _ what: String, _ condition: ([Member]) -> Bool) throws(ClusterError) -> [Member] {
        let deadline = Date().addingTimeInterval(seconds)
        var seen: [Member] = []
        while Date() < deadline {
            seen = members()
            if condition(seen) { return seen }
            usleep(100_000)
        }
        throw .failed(command: "wait for \(what)", output: "not within \(Int(seconds)) s; last seen: \(seen)")
    }

    /// `kill -9` of the node's postmaster (Patroni lives on and notices).
    public func killPostmaster(_ node: Node) throws(ClusterError) {
        guard let text = try? String(contentsOfFile: "\(node.dataDirectory)/postmaster.pid", encoding: .utf8),
              let line = text.split(separator: "\n").first, let pid = Int32(line) else {
            throw .failed(command: "kill the postmaster of \(node)", output: "no postmaster.pid")
        }
        guard kill(pid, SIGKILL) == 0 else {
            throw .failed(command: "kill -9 \(pid)", output: String(cString: strerror(errno)))
        }
    }

    /// `kill -9` of the node's Patroni; its PostgreSQL runs on, orphaned, until killed too.
    public func killPatroni(_ node: Node) throws(ClusterError) { try command("kill \(node.name)") }

    /// Stops the node as an operator would: SIGTERM to Patroni, which stops its PostgreSQL.
    public func stop(_ node: Node) throws(ClusterError) { try command("stop \(node.name)") }

    /// Starts the node's Patroni again (it starts, rewinds or clones its PostgreSQL as needed).
    public func start(_ node: Node) throws(ClusterError) { try command("start \(node.name)") }

    /// Turns Patroni's `synchronous_mode` on or off for the whole cluster (`PATCH /config`).
    public func setSynchronousMode(_ on: Bool) throws(ClusterError) {
        for node in nodes {
            let socket = Loopback.connected(port: node.restPort, timeout: 5)
            guard socket >= 0 else { continue }
            defer { close(socket) }
            if Self.httpBody(socket: socket, port: node.restPort, "PATCH", "/config", body: #"{"synchronous_mode": \#(on)}"#) != nil {
                return
            }
        }
        throw .failed(command: "PATCH /config", output: "no Patroni answered")
    }

    /// The last lines of every log of the cluster, for a failure message.
    public func logTail() -> String {
        var text = ""
        let logs = ["etcd.log"] + nodes.map { "\($0.name).log" } + nodes.map { "\($0.name)/log/postgresql.log" }
        for name in logs {
            let log = (try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)) ?? ""
            text += "--- \(name)\n" + log.split(separator: "\n").suffix(12).joined(separator: "\n") + "\n"
        }
        return text
    }

    private func command(_ line: String) throws(ClusterError) {
        let answer: String? = commands.withLock { pipes in
            guard let pipes else { return nil }
            let bytes = Array((line + "\n").utf8)
            guard write(pipes.input, bytes, bytes.count) == bytes.count else { return nil }
            return Self.readLine(pipes.output)
        }
        guard answer == "ok" else { throw .failed(command: line, output: (answer ?? "the supervisor is gone") + "\n" + logTail()) }
    }

    private func readLine() -> String? {
        commands.withLock { pipes in pipes.flatMap { Self.readLine($0.output) } }
    }

    private static func readLine(_ descriptor: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// One exchange with Patroni's REST API (HTTP/1.0 answers), its body when the status is 200.
    private static func httpBody(socket: Int32, port: Int, _ method: String, _ path: String, body: String? = nil) -> String? {
        let payload = Array((body ?? "").utf8)
        let request = Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(payload.count)\r\n\r\n".utf8) + payload
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return nil }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard text.hasPrefix("HTTP/1."), text.dropFirst(9).hasPrefix("200"), let split = text.range(of: "\r\n\r\n") else { return nil }
        return String(text[split.upperBound...])
    }

    /// Starts `python3 supervisor.py FOLDER` with pipes on its standard input and output (the
    /// test process's ends close on exec, so no other child holds them) and its errors in
    /// `supervisor.log`.
    private static func spawnSupervisor(folder: String) throws(ClusterError) -> (pid_t, input: Int32, output: Int32) {
        var toSupervisor: [Int32] = [0, 0]
        var fromSupervisor: [Int32] = [0, 0]
        guard pipe(&toSupervisor) == 0, pipe(&fromSupervisor) == 0 else {
            throw .failed(command: "pipe", output: String(cString: strerror(errno)))
        }
        for descriptor in toSupervisor + fromSupervisor { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toSupervisor[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromSupervisor[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "\(folder)/supervisor.log", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let command: [String] = ["/usr/bin/python3", "\(folder)/supervisor.py", folder]
        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/usr/bin/python3", &actions, nil, arguments, environ)
        close(toSupervisor[0])
        close(fromSupervisor[1])
        guard status == 0 else {
            close(toSupervisor[1])
            close(fromSupervisor[0])
            throw .failed(command: "python3 supervisor.py", output: String(cString: strerror(status)))
        }
        return (pid, toSupervisor[1], fromSupervisor[0])
    }

    private static func etcdScript(folder: String, clientPort: Int, peerPort: Int) -> String {
        let client = "http://127.0.0.1:\(clientPort)"
        let peer = "http://127.0.0.1:\(peerPort)"
        return """
            exec /usr/bin/etcd --name etcd --data-dir '\(folder)/etcd' --listen-client-urls \(client) \
            --advertise-client-urls \(client) --listen-peer-urls \(peer) --initial-advertise-peer-urls \(peer) \
            --initial-cluster etcd=\(peer) --log-level warn

            """
    }

    /// One node's Patroni configuration: the README's settings, on loopback ports.
    static func configuration(_ node: Node, folder: String, etcdPort: Int, binaries: String, synchronous: Bool,
                              durable: Bool) -> String {
        """
        scope: offer-signer-test
        name: \(node.name)
        log: {level: WARNING}
        restapi: {listen: '127.0.0.1:\(node.restPort)', connect_address: '127.0.0.1:\(node.restPort)'}
        etcd3: {host: '127.0.0.1:\(etcdPort)'}
        bootstrap:
          dcs:
            ttl: 10
            loop_wait: 1
            retry_timeout: 4
            maximum_lag_on_failover: 16777216
            primary_start_timeout: 0
            synchronous_mode: \(synchronous)
            postgresql:
              use_pg_rewind: true
              use_slots: true
              parameters:
                wal_log_hints: 'on'
                max_connections: 200
                max_wal_senders: 10
                max_replication_slots: 10
                wal_keep_size: 128MB
          initdb: [{encoding: UTF8}, {locale: C}, no-sync]
          pg_hba:
          - local all all trust
          - host all all 127.0.0.1/32 trust
          - host replication all 127.0.0.1/32 trust
        postgresql:
          listen: '127.0.0.1:\(node.port)'
          connect_address: '127.0.0.1:\(node.port)'
          data_dir: '\(node.dataDirectory)'
          bin_dir: '\(binaries)'
          pgpass: '\(folder)/\(node.name).pgpass'
          authentication:
            superuser: {username: \(TestPostgreSQLCluster.user)}
            replication: {username: \(TestPostgreSQLCluster.user)}
            rewind: {username: \(TestPostgreSQLCluster.user)}
          parameters:
            unix_socket_directories: '\(folder)'
            fsync: '\(durable ? "on" : "off")'
            logging_collector: 'on'
            log_directory: 'log'
            log_filename: 'postgresql.log'

        """
    }
}

/// HA clusters started by this process (for their folder names).
private let clusters = Mutex(0)
