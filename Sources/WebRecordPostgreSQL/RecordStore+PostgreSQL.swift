import Foundation
import WebRecord

/// How a ``RecordStore`` on PostgreSQL is set up, besides its connection URL and the store's
/// ``RecordStore/Configuration``.
public struct PostgreSQLConfiguration: Sendable {
    /// The schema (namespace) that holds the store's tables, created when missing. Default
    /// `public`. Any name of at most 63 bytes without a NUL character: it is always quoted.
    public var namespace = "public"

    /// How long one statement may run before the server cancels it (`statement_timeout`, to
    /// the millisecond), or nil, the default, for the server's setting. A statement that runs
    /// longer fails with a `storeError` naming the timeout (SQLSTATE `57014`), and its
    /// population rolls back.
    public var statementTimeout: Duration?

    /// The name the server shows for the store's connection (`application_name`, in
    /// `pg_stat_activity` and the server's log). Default `webrecord`. A name the location gives
    /// (`?application_name=ingest-3`) or libpq's `PGAPPNAME` wins over it.
    public var applicationName = "webrecord"

    /// How many times a population is tried again when another worker's transaction conflicts
    /// with it (a deadlock, a serialization failure, a key the other inserted first) before its
    /// error is reported. Default 8. Each retry is logged and counted in ``Debugger/retries``.
    public var conflictRetries = 8

    /// The default configuration.
    public init() {}
}

extension RecordStore {
    /// Opens a store in a PostgreSQL database for `schema`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let store = try RecordStore(postgreSQL: "postgresql://ingest@db.internal/mirror", schema: schema)
    /// ```
    ///
    /// `location` is a connection URL (`postgresql://user@host:port/database?sslmode=require`)
    /// or a libpq conninfo string (`host=/run/postgresql dbname=mirror`). What it leaves out comes
    /// from libpq's environment variables (`PGHOST`, `PGUSER`, `PGPASSWORD`, ...) and password file
    /// (`~/.pgpass`), so a password need not be written in it. No message, error or description
    /// of the store shows the password.
    ///
    /// The tables are made by the first write, or the first read, in the configuration's
    /// namespace, with the layout `Docs/StorageLayout.md` describes mapped to PostgreSQL's types
    /// (`Docs/PostgreSQL.md`). ``RecordStore/read(_:)`` and ``RecordStore/write(_:)`` need a
    /// SQLite store: on this one they throw `invalidArgument`.
    ///
    /// Observations (``RecordStore/observe(_:where:arguments:orderBy:limit:sectionKey:keyPaths:)``)
    /// see every worker's commits: each population's commit notifies the channel `webrecord`,
    /// and the store's observations listen on a connection of their own (`Docs/PostgreSQL.md`,
    /// "Observation").
    ///
    /// - Parameters:
    ///   - location: the connection URL or conninfo string.
    ///   - schema: the schema.
    ///   - configuration: the store's configuration; its logging, transformers, SQL observer
    ///     and cancellation apply, its SQLite file settings do not.
    ///   - postgreSQL: the namespace, statement timeout, application name and conflict retries.
    /// - Throws: ``WebRecordError``: `storeError` when the server cannot be reached;
    ///   `invalidArgument` for a location libpq cannot read, an empty namespace, or a statement
    ///   timeout that is not positive; `invalidSchema` for a schema that breaks one of
    ///   PostgreSQL's limits (a name longer than 63 bytes, a table wider than 1,600 columns).
    public convenience init(
        postgreSQL location: String, schema: Schema, configuration: Configuration = Configuration(),
        postgreSQL settings: PostgreSQLConfiguration = PostgreSQLConfiguration()
    ) throws(WebRecordError) {
        var options = PostgreSQLDatabase.Options()
        options.namespace = settings.namespace
        options.statementTimeout = settings.statementTimeout
        options.applicationName = settings.applicationName
        options.conflictRetryLimit = settings.conflictRetries
        options.logger = configuration.logger
        options.transformers = configuration.transformers
        options.sqlObserver = configuration.sqlObserver
        self.init(
            database: try PostgreSQLDatabase(location, schema: schema, options: options), configuration: configuration)
    }
}
