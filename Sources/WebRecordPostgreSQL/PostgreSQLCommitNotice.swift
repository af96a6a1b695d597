import Foundation
import WebRecord

/// How a PostgreSQL store's commits announce themselves to the observations of every worker:
/// a notification on the channel `webrecord`, sent inside the write transaction, so that the
/// server delivers it when the transaction commits and drops it when it rolls back.
///
/// The payload is a JSON object naming the store's schema (namespace) and the tables the
/// transaction changed, `{"schema":"public","tables":["Post","User"]}`. The tables are left out
/// when the list would not fit in a notification (PostgreSQL takes fewer than 8,000 bytes), and
/// when the server does not count changed rows (`track_counts` off): every table of the schema
/// may have changed then. An empty payload, or one that is not such an object, announces that
/// anything in the database may have changed: a program writing the tables outside WebRecord
/// can announce its commits with a plain `NOTIFY webrecord`.
///
/// Which tables changed is read from the server's own count of the rows this transaction
/// inserted, updated and deleted in each table (`pg_stat_get_xact_tuples_*`), before and after
/// the population's work: rows changed by foreign-key actions count too, and a transaction that
/// changed no row sends nothing. Which rows changed is not known.
enum PostgreSQLCommitNotice {
    /// The channel every PostgreSQL store notifies and listens on.
    static let channel = "webrecord"

    /// The longest payload sent with its tables: PostgreSQL refuses one of 8,000 bytes or more.
    static let payloadLimit = 7_900

    /// Runs `body`, the work of a write transaction on `connection`, and, when it changed rows
    /// of `database`'s tables, notifies ``channel`` inside the transaction.
    static func announcing<T>(
        changesOf database: PostgreSQLDatabase, on connection: PostgreSQLConnection, _ body: () throws -> T
    ) throws -> T {
        let tables = (database.layout.tables.map(\.name) + database.layout.joinTables.map(\.name)).sorted()
        let before = try counts(of: tables, in: database.namespace, on: connection)
        let result = try body()
        let after = try counts(of: tables, in: database.namespace, on: connection)
        if after.isCounting {
            let changed = tables.filter { (after.rows[$0] ?? 0) != (before.rows[$0] ?? 0) }
            if !changed.isEmpty { try notify(payload(namespace: database.namespace, tables: changed), on: connection) }
        } else {
            try notify(payload(namespace: database.namespace, tables: nil), on: connection)
        }
        return result
    }

    /// What the server has counted of this connection's changed rows.
    struct Counts {
        /// The rows inserted, updated and deleted in each table (counted since the server last
        /// took the connection's counts, which it does only between transactions).
        var rows: [String: Int64] = [:]
        /// Whether the server counts rows at all (`track_counts`).
        var isCounting = true
    }

    /// The server's counts of the rows this connection changed in `tables` of `namespace`.
    static func counts(of tables: [String], in namespace: String, on connection: PostgreSQLConnection)
        throws(WebRecordError) -> Counts
    {
        let rows = try connection.rows(
            """
            SELECT t.name, pg_stat_get_xact_tuples_inserted(t.oid) + pg_stat_get_xact_tuples_updated(t.oid) \
            + pg_stat_get_xact_tuples_deleted(t.oid), current_setting('track_counts')::boolean \
            FROM (SELECT name, to_regclass(quote_ident($2::text) || '.' || quote_ident(name)) AS oid \
            FROM unnest($1::text[]) AS name) AS t WHERE t.oid IS NOT NULL
            """,
            [try PostgreSQLArray.literal(tables.map { .text($0) }), .text(namespace)])
        var counts = Counts()
        for row in rows where row.count == 3 {
            guard case .text(let table) = row[0], case .integer(let changed) = row[1] else { continue }
            counts.rows[table] = changed
            if case .integer(let counting) = row[2] { counts.isCounting = counting != 0 }
        }
        return counts
    }

    /// Sends `payload` on ``channel`` (`pg_notify`, with the payload bound).
    static func notify(_ payload: String, on connection: PostgreSQLConnection) throws(WebRecordError) {
        try connection.execute("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    // MARK: - Payloads

    /// The payload that announces changes to `tables` of `namespace`, or to any of its tables
    /// when `tables` is nil or too long to send.
    static func payload(namespace: String, tables: [String]?) -> String {
        let bare = JSONValue.object(["schema": .string(namespace)]).serialized()
        guard let tables else { return bare }
        let full = JSONValue.object(["schema": .string(namespace), "tables": .array(tables.map { .string($0) })])
            .serialized()
        return full.utf8.count <= payloadLimit ? full : bare
    }

    /// The change a payload announces to the store in `namespace`, or nil when it is about
    /// another schema.
    static func change(fromPayload payload: String, namespace: String) -> StoreChange? {
        guard let object = try? JSONReader().read(payload), let schema = object["schema"]?.stringValue else {
            return .unknown
        }
        guard schema == namespace else { return nil }
        guard let tables = object["tables"]?.arrayValue else { return .unknown }
        var changed: [String: Set<Int64>?] = [:]
        for table in tables {
            guard let name = table.stringValue else { return .unknown }
            changed[name] = .some(nil)
        }
        return .tables(changed)
    }
}
