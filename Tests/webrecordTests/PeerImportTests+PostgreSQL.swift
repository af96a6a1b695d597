import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord

/// The peer `webrecord-bench --phase postgres` times WebRecord against in PostgreSQL, dlt's
/// merge on the primary key into a PostgreSQL database (`Scripts/peers/dlt_postgres_import.py`),
/// stores the hand-written Python reference's records, as dlt's SQLite peer does. Nothing here
/// is timed.
///
/// dlt's PostgreSQL destination (`pip install "dlt[postgres]==1.31.*"`, with psycopg2) is a
/// Python package the package does not install: the check runs only where python3 can import
/// it, and is skipped otherwise, as its name says. The database is one of the tests' private
/// server (``PostgreSQLTestServer``), read back with psycopg2 under the reference's names (dlt's
/// naming convention, without dlt's own columns), dates as instants.
extension PeerImportTests {
    @Test(
        .enabled(
            if: PeerImportTests.pythonCanImport("dlt, psycopg2"),
            "dlt with its PostgreSQL destination is not installed for python3: its records in PostgreSQL are not checked here"
        ))
    func dltIntoPostgreSQLWhenInstalledStoresTheReferenceRecords() async throws {
        let response = try await generate()
        let reference = try await Self.pythonDump(try await referenceStore(response), naming: "plain")
        #expect(reference["Post"]?.count == Self.posts)
        #expect((reference["User"]?.count ?? 0) > 1)
        let recordCount = reference.values.reduce(0) { $0 + $1.count }

        let server = try PostgreSQLTestServer.shared()
        let database = try server.makeDatabase()
        let script = Self.packageRoot.appendingPathComponent("Scripts/peers/dlt_postgres_import.py").path
        // Both forms of URL the script reads: the socket directory as the `host` parameter (as
        // the benchmark gives it) and as the host, percent-encoded; with and without a working
        // folder of dlt's.
        let urls = [
            "postgresql://\(server.user)@/\(database)?host=\(server.directory)",
            server.url(database: database),
        ]
        var dumps: [Records] = []
        for (index, url) in urls.enumerated() {
            let arguments = [script, response, url] + (index == 0 ? [directory.path("dlt-working")] : [])
            let run = try await ChildProcess.run(try ChildProcess.onPath("python3"), arguments, timeout: 300)
            #expect(run.status == 0, "\(run)")
            let line = try #require(run.stdoutLines.last { $0.hasPrefix("RESULT ") }, "\(run)")
            #expect(line.contains("seconds=") && line.hasSuffix(" records=\(recordCount)"), "\(line)")
            dumps.append(
                try await Self.records(fromDump: Self.postgreSQLDumpScript, [server.conninfo(database: database)]))
        }
        #expect(dumps[0] == dumps[1], "dlt_postgres_import.py: the re-import changed the database")
        Self.expectSameRecords(dumps[0], as: reference, peer: "dlt into PostgreSQL", other: "the reference")
    }

    /// Reads dlt's tables in the schema `appnet` of a PostgreSQL database (a conninfo string) as
    /// ``dumpScript`` reads a store with `dlt` naming: each of the reference's tables by key, each
    /// record's values by the reference's column names, `date` as seconds since 1970.
    static let postgreSQLDumpScript = """
        import datetime, json, sys
        import psycopg2
        from dlt.common.normalizers.naming.snake_case import NamingConvention
        \(referenceColumns)
        normalize = NamingConvention().normalize_identifier
        cursor = psycopg2.connect(sys.argv[1]).cursor()
        dump = {}
        for table, names in columns.items():
            back = {normalize(name): name for name in names}
            cursor.execute(f'SELECT * FROM appnet."{normalize(table)}"')
            fields = [column[0] for column in cursor.description]
            records = {}
            for row in cursor.fetchall():
                values = {back.get(k, k): v for k, v in zip(fields, row) if not k.startswith("_dlt_")}
                if isinstance(values.get("date"), datetime.datetime):
                    values["date"] = values["date"].timestamp()
                records[str(values[keys[table]])] = values
            dump[table] = records
        print(json.dumps(dump))
        """
}
