import WebRecord

/// Creates or migrates a PostgreSQL store's tables, in a transaction of their own before the
/// store's first write or read, with the SQLite store's comparison (``LayoutMigrationPlan``):
/// new tables, columns, join tables and indexes are added; any other change is refused with
/// `incompatibleStore`, naming every change, and nothing is written.
///
/// The transaction first takes an advisory lock (`pg_advisory_xact_lock`, keyed by the
/// store's schema name) held until it ends: two workers that start at once against an empty
/// database take turns, and the second finds the tables made (each statement of a
/// `READ COMMITTED` transaction sees what committed before it).
///
/// A store whose tables are already as the schema lays them out takes no lock: it is checked
/// first without one, so that workers writing at once into a made store never wait for each
/// other's transactions here.
struct PostgreSQLMigrator {
    let layout: StorageLayout
    let namespace: String
    let connection: PostgreSQLConnection

    func migrate() throws(WebRecordError) {
        let current = try plan()
        if current.statements.isEmpty, current.metadata == current.storedMetadata { return }
        try connection.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [.text("WebRecord layout of \(namespace)")])
        let namespaceExists = try connection.scalar(
            "SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = $1", [.text(namespace)])
        if namespaceExists == .integer(0) {
            try connection.execute("CREATE SCHEMA IF NOT EXISTS \(pgQuote(namespace))")
        }
        let plan = try plan()
        let stored = plan.storedMetadata
        if stored == nil {
            try connection.execute(
                "CREATE TABLE \"_webrecord_metadata\" (\"key\" text COLLATE \"C\" PRIMARY KEY, \"value\" text NOT NULL)"
            )
        }
        // Every new table first, so that the foreign keys added after find the tables they name.
        let creations = plan.statements.filter { $0.hasPrefix("CREATE TABLE ") }
        for statement in creations + plan.statements.filter({ !$0.hasPrefix("CREATE TABLE ") }) {
            do throws(WebRecordError) {
                try connection.execute(statement)
            } catch {
                guard let key = plan.addedKeyIndexes[statement] else { throw error }
                throw LayoutMigrationPlan.repeatedKeyError(key, cause: error)
            }
        }
        if plan.metadata != stored {
            try connection.execute(
                """
                INSERT INTO "_webrecord_metadata" ("key", "value") VALUES ('layout', $1)
                ON CONFLICT ("key") DO UPDATE SET "value" = EXCLUDED."value"
                """,
                [.text(plan.metadata.serialized(sortedKeys: true))])
        }
    }

    /// What migrating the store's tables takes, with the layout record they have now.
    private func plan() throws(WebRecordError) -> (
        statements: [String], metadata: JSONValue, storedMetadata: JSONValue?, addedKeyIndexes: [String: String]
    ) {
        let stored = try storedLayout()
        let indexes = try connection.rows(
            "SELECT indexname FROM pg_catalog.pg_indexes WHERE schemaname = $1", [.text(namespace)])
        let existingIndexes = Set(
            indexes.compactMap { row -> String? in
                if case .text(let name)? = row.first { return name }
                return nil
            })
        let plan = try LayoutMigrationPlan(
            layout: layout, stored: stored, existingIndexes: existingIndexes, ddl: PostgreSQLLayoutDDL())
        return (plan.statements, plan.metadata, stored.map(JSONValue.object), plan.addedKeyIndexes)
    }

    /// The layout record of the store, nil when the schema holds no table yet.
    ///
    /// - Throws: `incompatibleStore` when the schema holds tables WebRecord did not make, or a
    ///   layout record WebRecord cannot read.
    private func storedLayout() throws(WebRecordError) -> JSONObject? {
        // A schema the role may not use reads as if it held no table: say so instead.
        let usable = try connection.scalar(
            "SELECT has_schema_privilege(oid, 'USAGE') FROM pg_catalog.pg_namespace WHERE nspname = $1",
            [.text(namespace)])
        if usable == .integer(0) {
            let role = try connection.scalar("SELECT current_user::text")
            let name = role.flatMap { if case .text(let text) = $0 { text } else { nil } } ?? "the store's role"
            throw WebRecordError(
                .storeError,
                "the role '\(name)' may not use the schema '\(namespace)' that holds the store's tables (it has no USAGE privilege on it): grant it (GRANT USAGE ON SCHEMA ...), or give the store another namespace"
            )
        }
        let tables = try connection.rows(
            "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = $1 ORDER BY tablename", [.text(namespace)]
        ).compactMap { row -> String? in
            if case .text(let name)? = row.first { return name }
            return nil
        }
        guard tables.contains("_webrecord_metadata") else {
            // Another application's views count as its tables do.
            let views = try connection.rows(
                "SELECT viewname FROM pg_catalog.pg_views WHERE schemaname = $1 ORDER BY viewname", [.text(namespace)]
            ).compactMap { row -> String? in
                if case .text(let name)? = row.first { return name }
                return nil
            }
            guard tables.isEmpty, views.isEmpty else {
                throw WebRecordError(
                    .incompatibleStore,
                    ForeignObjects.message(tables.map { ("table", $0) } + views.map { ("view", $0) }))
            }
            return nil
        }
        return try LayoutMigrationPlan.layoutRecord(
            try connection.scalar("SELECT \"value\" FROM \"_webrecord_metadata\" WHERE \"key\" = 'layout'"))
    }
}
