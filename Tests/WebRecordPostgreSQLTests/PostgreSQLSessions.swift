import Foundation
import PostgreSQLTestSupport
import TestSupport
import WebRecord

@testable import WebRecordPostgreSQL

/// The server's view of a store's session, from a second connection: its backend process, its
/// application name, and ending it as a restart or an administrator would.
enum PostgreSQLSessions {
    /// The process id of the backend serving `database`'s connection.
    static func backend(of database: PostgreSQLDatabase) throws -> Int64 {
        guard case .integer(let pid)? = try database.withConnection({ try $0.scalar("SELECT pg_backend_pid()") })
        else { throw WebRecordError(.storeError, "no backend process id") }
        return pid
    }

    /// The `application_name` the server shows for the backend `pid` in `pg_stat_activity`.
    static func applicationName(of pid: Int64, on server: PostgreSQLTestServer) throws -> DatabaseValue? {
        try PostgreSQLConnection(server.conninfo()).scalar(
            "SELECT application_name FROM pg_stat_activity WHERE pid = $1", [.integer(pid)])
    }

    /// Ends the backend `pid` (`pg_terminate_backend`), and waits until it is gone: the client
    /// finds its connection closed.
    ///
    /// - Returns: whether the backend ended within 10 s.
    @discardableResult
    static func terminate(_ pid: Int64, on server: PostgreSQLTestServer) throws -> Bool {
        try PostgreSQLConnection(server.conninfo()).scalar(
            "SELECT pg_terminate_backend($1, 10000)", [.integer(pid)]) == .integer(1)
    }

    /// A statement observer that, once ``arm(_:)`` gave it something to do, does it just before
    /// the first statement whose text starts with one of `prefixes` is sent, on the store's
    /// thread: the statement then meets what the action did (a terminated backend, a restarted
    /// server).
    final class Trigger: Sendable {
        private let prefixes: [String]
        private let action = Locked<(@Sendable () throws -> Void)?>(nil)
        private let failures = Locked<[String]>([])
        /// The statements that met the action, by their first 40 characters.
        let fired = Locked<[String]>([])

        init(before prefixes: [String]) {
            self.prefixes = prefixes
        }

        /// Runs `action` before the next statement with one of the prefixes.
        func arm(_ action: @escaping @Sendable () throws -> Void) {
            self.action.value = action
        }

        /// What the action threw, if it failed.
        var errors: [String] { failures.value }

        /// The observer to give the store's options.
        var observer: @Sendable (String) -> Void {
            { [self] sql in
                guard prefixes.contains(where: { sql.hasPrefix($0) }) else { return }
                guard
                    let action = action.withLock({ action in
                        defer { action = nil }
                        return action
                    })
                else { return }
                fired.withLock { $0.append(String(sql.prefix(40))) }
                do { try action() } catch { failures.withLock { $0.append("\(error)") } }
            }
        }
    }
}
