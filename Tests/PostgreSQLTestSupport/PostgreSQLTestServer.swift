import Foundation
import TestSupport
import WebRecord
import WebRecordPostgreSQL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A private PostgreSQL server for the tests: `initdb` into a temporary directory, run as the
/// unprivileged user `nobody` (the tests run as root, which `initdb` and `postgres` refuse),
/// listening only on a Unix socket in that directory (`listen_addresses=''`), started with
/// `pg_ctl -w` and stopped with `pg_ctl stop -m fast`, its directory removed after.
///
/// One server serves a whole test process (``shared()``), started on first use and stopped
/// when the process exits; each test works in a database of its own (``makeDatabase()``). A
/// server that cannot start is an error that says why: PostgreSQL suites fail, never skip.
///
/// The benchmark (`webrecord-bench --phase postgres`) starts one the same way, with the
/// server's default settings (``Settings/serverDefaults``) instead of the tests' `fsync=off`.
public final class PostgreSQLTestServer: Sendable {
    /// How the server is configured.
    public enum Settings: Sendable {
        /// For the tests: `fsync=off`, as nothing a test writes has to survive a crash of the
        /// machine, and `max_connections=100`.
        case tests
        /// The settings `initdb` leaves, untouched (`fsync`, `synchronous_commit`,
        /// `shared_buffers` and the rest): what a benchmark measures.
        case serverDefaults
    }

    /// The directory holding the cluster (`data/`), the socket and the log.
    public let directory: String
    /// The superuser the tests connect as.
    public let user = "postgres"
    /// The port, which names the socket file (`.s.PGSQL.<port>`); nothing listens on TCP.
    public let port = 5432
    /// How the server is configured.
    public let settings: Settings
    private let binaries: String
    private let counter = Locked(0)

    /// Why the server could not be started or stopped.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The server of this test process, started on first use.
    ///
    /// - Throws: ``Failure`` saying why it could not start (no PostgreSQL installed, `initdb`
    ///   or `pg_ctl` failed, with their output).
    public static func shared() throws -> PostgreSQLTestServer {
        try sharedServer.get()
    }

    private static let sharedServer: Result<PostgreSQLTestServer, Failure> = {
        do {
            let server = try PostgreSQLTestServer()
            sharedDirectory.value = server.directory
            server.stopWhenProcessEnds()
            atexit { PostgreSQLTestServer.stopShared() }
            return .success(server)
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
    }()

    private static let sharedDirectory = Locked<String?>(nil)

    /// Stops the shared server at exit (an `atexit` handler cannot capture it).
    private static func stopShared() {
        guard let directory = sharedDirectory.value, let binaries = try? findBinaries() else { return }
        stop(directory: directory, binaries: binaries)
    }

    /// Starts a server of its own in a new temporary directory, configured with `settings`.
    /// Most tests share ``shared()``; a test that stops its server starts one of these.
    public init(settings: Settings = .tests) throws {
        self.settings = settings
        binaries = try Self.findBinaries()
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "webrecord-pg-\(UUID().uuidString.prefix(8))"
            ).path
        do {
            try start()
        } catch {
            Self.stop(directory: directory, binaries: binaries)
            throw error
        }
    }

    /// Stops the server and removes its directory.
    public func stop() {
        Self.stop(directory: directory, binaries: binaries)
    }

    /// Stops the server and starts it again on the same data directory (`pg_ctl restart -m
    /// fast`): every connection is closed, every committed row stays.
    ///
    /// - Throws: ``Failure`` with `pg_ctl`'s output and the server's log when it does not start.
    public func restart() throws {
        try runAsNobody(
            "pg_ctl",
            [
                "-D", dataDirectory, "-l", logPath, "-o", serverOptions, "-m", "fast", "-w", "-t", Self.pgCtlTimeout,
                "restart",
            ])
    }

    /// A conninfo string for `database` on this server, as the superuser, over the socket.
    public func conninfo(database: String = "postgres") -> String {
        "host=\(directory) port=\(port) user=\(user) dbname=\(database)"
    }

    /// A connection URL for `database` on this server (the socket directory percent-encoded as
    /// the host), with `password` in it when given (the server trusts local connections, so
    /// any password is accepted and none is needed).
    public func url(database: String = "postgres", password: String? = nil) -> String {
        let host = directory.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? directory
        let credentials = password.map { "\(user):\($0)" } ?? user
        return "postgresql://\(credentials)@\(host):\(port)/\(database)"
    }

    /// Creates a new empty database for one test and returns its name.
    public func makeDatabase() throws -> String {
        let number = counter.withLock { count in
            count += 1
            return count
        }
        let name = "test_\(ProcessInfo.processInfo.processIdentifier)_\(number)"
        let connection = try PostgreSQLConnection(conninfo())
        // The name is made here of letters, digits and underscores: nothing to quote.
        try connection.execute("CREATE DATABASE \(name)")
        return name
    }

    // MARK: - Starting and stopping

    private func start() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard chown(directory, Self.nobody.uid, Self.nobody.gid) == 0 else {
            throw Failure(description: "cannot give \(directory) to nobody: \(String(cString: strerror(errno)))")
        }
        try runAsNobody(
            "initdb",
            [
                "-D", dataDirectory, "-U", user, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync",
            ])
        try runAsNobody(
            "pg_ctl", ["-D", dataDirectory, "-l", logPath, "-o", serverOptions, "-w", "-t", Self.pgCtlTimeout, "start"])
    }

    /// How long `pg_ctl` waits for the server to start or stop, in seconds: four minutes, which
    /// only a hang exhausts, and less than the ``DetachedCommand/run(_:timeout:)`` wait around
    /// it, so that `pg_ctl` reports a server that does not start, with its log.
    static let pgCtlTimeout = "240"

    /// The cluster's directory.
    private var dataDirectory: String { directory + "/data" }

    /// The server's log.
    private var logPath: String { directory + "/log" }

    /// The server's options: no TCP, the socket in ``directory``; for the tests, no fsync.
    private var serverOptions: String {
        let options = "-c listen_addresses='' -k \(directory) -p \(port)"
        guard case .tests = settings else { return options }
        return options + " -c fsync=off -c max_connections=100"
    }

    /// Starts a shell that stops the server and removes its directory once this process is
    /// gone, however it ends: a crash or a kill skips the `atexit` handler.
    public func stopWhenProcessEnds() {
        let pgCtl = "setpriv --reuid=nobody --regid=nogroup --clear-groups"
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 2; done
            if [ -f '\(directory)/data/postmaster.pid' ]; then
                \(getuid() == 0 ? pgCtl : "") '\(binaries)/pg_ctl' -D '\(directory)/data' -m fast -w stop
            fi
            rm -rf '\(directory)'
            """
        _ = try? DetachedCommand.start(["/bin/sh", "-c", script], outputPath: "/dev/null")
    }

    private static func stop(directory: String, binaries: String) {
        let data = directory + "/data"
        if FileManager.default.fileExists(atPath: data + "/postmaster.pid") {
            _ = try? run(
                binaries + "/pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", pgCtlTimeout, "stop"], asNobody: true)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func runAsNobody(_ tool: String, _ arguments: [String]) throws {
        let result = try Self.run(binaries + "/" + tool, arguments, asNobody: true)
        guard result.status == 0 else {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw Failure(
                description:
                    "the test PostgreSQL server did not start: \(tool) exited with \(result.status): \(result.output)\n\(log)"
            )
        }
    }

    /// Runs `tool`, as `nobody` when this process is root (through `setpriv`), to its end.
    private static func run(_ tool: String, _ arguments: [String], asNobody: Bool) throws -> (
        status: Int32, output: String
    ) {
        guard asNobody, getuid() == 0 else { return try DetachedCommand.run([tool] + arguments) }
        let setpriv = try ChildProcess.onPath("setpriv").path
        return try DetachedCommand.run(
            [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", tool] + arguments)
    }

    /// The newest PostgreSQL's binaries under `/usr/lib/postgresql/*/bin` (Debian's layout),
    /// else the directory of `pg_ctl` on `PATH`.
    private static func findBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for version in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        if let pgCtl = try? ChildProcess.onPath("pg_ctl") {
            return pgCtl.deletingLastPathComponent().path
        }
        throw Failure(
            description:
                "PostgreSQL is not installed: no initdb under \(root)/*/bin or on PATH (apt-get install postgresql)")
    }

    /// The user and group ids of `nobody` and `nogroup`, which own the cluster when the tests
    /// run as root.
    private static let nobody: (uid: uid_t, gid: gid_t) = {
        guard getuid() == 0 else { return (getuid(), getgid()) }
        let uid = getpwnam("nobody")?.pointee.pw_uid ?? 65534
        let gid = getgrnam("nogroup")?.pointee.gr_gid ?? 65534
        return (uid, gid)
    }()
}
