import Foundation
import PostgreSQLTestSupport
import WebRecord
import WebRecordPostgreSQL

/// The private PostgreSQL server of `--phase postgres`, started as the tests start theirs
/// (`initdb` into a temporary directory, run as `nobody` when the benchmark runs as root, a
/// Unix socket in that directory and no TCP port), but with the server's default settings:
/// `fsync`, `synchronous_commit`, `shared_buffers` and the rest as `initdb` leaves them.
///
/// It is stopped, and its directory removed, by ``stop()``, or by a watcher shell when the
/// benchmark dies without calling it.
struct BenchmarkPostgreSQL {
    let server: PostgreSQLTestServer

    /// Starts the server.
    ///
    /// - Throws: ``BenchmarkError`` saying why it could not start (no PostgreSQL installed,
    ///   `initdb` or `pg_ctl` failed, with their output).
    static func start() throws -> BenchmarkPostgreSQL {
        let server: PostgreSQLTestServer
        do {
            server = try PostgreSQLTestServer(settings: .serverDefaults)
        } catch {
            throw BenchmarkError("cannot start a PostgreSQL server for the phase: \(error)")
        }
        server.stopWhenProcessEnds()
        return BenchmarkPostgreSQL(server: server)
    }

    /// Stops the server and removes its directory.
    func stop() {
        server.stop()
    }

    /// The connection URL of `database`, as `webrecord populate --db` and the dlt script take
    /// it: `postgresql://postgres@/NAME?host=SOCKET_DIRECTORY`.
    func url(_ database: String) -> String {
        "postgresql://\(server.user)@/\(database)?host=\(server.directory)"
    }

    /// Creates `database`, empty (dropping one of that name first), then runs a checkpoint, so
    /// that a timed run does not write out what the runs before it left in the server's buffers.
    func createEmptyDatabase(_ database: String) throws {
        try administer { connection in
            // The names are the benchmark's own, letters, digits and underscores.
            _ = try connection.execute("DROP DATABASE IF EXISTS \(database)")
            _ = try connection.execute("CREATE DATABASE \(database)")
            _ = try connection.execute("CHECKPOINT")
        }
    }

    /// Runs a checkpoint: what earlier runs left in the server's buffers is written out.
    func checkpoint() throws {
        try administer { connection in _ = try connection.execute("CHECKPOINT") }
    }

    /// Drops `database`, if it exists.
    func dropDatabase(_ database: String) throws {
        try administer { connection in _ = try connection.execute("DROP DATABASE IF EXISTS \(database)") }
    }

    /// The rows of `table` in the `public` schema of `database`.
    func count(_ table: String, in database: String) throws -> Int {
        try administer(database: database) { connection in
            guard case .integer(let count) = try connection.scalar("SELECT count(*) FROM \"\(table)\"") else {
                throw BenchmarkError("SELECT count(*) FROM \"\(table)\" in \(database) returned no number")
            }
            return Int(count)
        }
    }

    /// The server's version and the settings that govern how fast it commits, for the report:
    /// `PostgreSQL 15.20; fsync=on synchronous_commit=on ...`.
    func describeSettings() throws -> String {
        try administer { connection in
            let version = try connection.scalar("SHOW server_version")
            var settings: [String] = []
            for name in [
                "fsync", "synchronous_commit", "full_page_writes", "wal_level", "shared_buffers", "max_wal_size",
            ] {
                if case .text(let value) = try connection.scalar("SHOW \(name)") { settings.append("\(name)=\(value)") }
            }
            let versionText: String
            if case .text(let text) = version { versionText = text } else { versionText = "?" }
            return "PostgreSQL \(versionText); \(settings.joined(separator: " "))"
        }
    }

    private func administer<T>(database: String = "postgres", _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        do {
            let connection = try PostgreSQLConnection(server.conninfo(database: database))
            // No notices on standard error ("database ... does not exist, skipping").
            _ = try connection.execute("SET client_min_messages TO warning")
            return try body(connection)
        } catch let error as BenchmarkError {
            throw error
        } catch {
            throw BenchmarkError("PostgreSQL (\(database)): \(error)")
        }
    }
}

extension BenchmarkPostgreSQL {
    /// Fails the phase, loudly, unless the `public` schema of `database` holds `posts` posts and
    /// `users` users.
    func expectRows(posts: Int, users: Int, in database: String, after what: String) throws {
        let storedPosts = try count("Post", in: database)
        let storedUsers = try count("User", in: database)
        guard storedPosts == posts, storedUsers == users else {
            throw BenchmarkError(
                "CHECK FAILED after \(what): the PostgreSQL store \(database) holds \(storedPosts) posts and "
                    + "\(storedUsers) users, not the \(posts) posts and \(users) users of the response(s)")
        }
    }

    /// The CPU seconds the server's processes have used so far: the postmaster's own and those
    /// of its children that have exited (each connection's backend is one), and those of its
    /// children still running (the checkpointer, the WAL writer, open connections' backends).
    /// The difference between two readings is the server's CPU time in between. Nil where
    /// `/proc` cannot tell.
    func serverCPUSeconds() -> Double? {
        let pidFile = server.directory + "/data/postmaster.pid"
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let postmaster = text.split(separator: "\n").first.flatMap({ Int32($0) }),
            let own = Self.processTimes(postmaster)
        else { return nil }
        var ticks = own.user + own.system + own.children
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for pid in processes.compactMap(Int32.init) where pid != postmaster {
            if let times = Self.processTimes(pid), times.parent == postmaster { ticks += times.user + times.system }
        }
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// A process's parent, its user and system CPU ticks, and those of its children it has
    /// waited for (`/proc/PID/stat`).
    private static func processTimes(_ pid: Int32) -> (parent: Int32, user: Int, system: Int, children: Int)? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // After "pid (name)": state, ppid, pgrp, session, tty, tpgid, flags, minflt, cminflt,
        // majflt, cmajflt, utime, stime, cutime, cstime, ...
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]), let user = Int(fields[11]),
            let system = Int(fields[12]), let childUser = Int(fields[13]), let childSystem = Int(fields[14])
        else { return nil }
        return (parent, user, system, childUser + childSystem)
    }
}
