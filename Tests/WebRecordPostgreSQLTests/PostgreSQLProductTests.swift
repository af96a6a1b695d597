import Foundation
import TestSupport
import Testing

/// PostgreSQL support is a product of its own: an app that uses only `WebRecord` does not link
/// libpq.
@Suite struct PostgreSQLProductTests {
    /// The package's root directory.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func onlyThePostgreSQLTargetsDependOnLibpq() throws {
        let manifest = try String(contentsOf: Self.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let dependents = manifest.split(separator: "\n").filter {
            $0.contains("\"WebRecordLibPQ\"") && $0.contains("dependencies")
        }
        #expect(
            dependents.map { $0.trimmingCharacters(in: .whitespaces) } == [
                #".target(name: "WebRecordPostgreSQL", dependencies: ["WebRecord", "WebRecordLibPQ"]),"#
            ])
        #expect(manifest.contains(#".target(name: "WebRecord", dependencies: ["WebRecordSQLite"]),"#))
        #expect(manifest.contains(#".library(name: "WebRecordPostgreSQL", targets: ["WebRecordPostgreSQL"]),"#))
    }

    #if os(Linux)
        // ldd lists the shared libraries an ELF executable loads.
        @Test func anAppOfWebRecordAloneDoesNotLinkLibpq() async throws {
            // The App.net example uses WebRecord (and WebRecordTesting) only.
            let app = try BuiltExecutables.executable("appnet-example", besides: Bundle.main)
            let ldd = try ChildProcess.onPath("ldd")
            let result = try await ChildProcess.run(ldd, [app.path])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("libsqlite3"))
            #expect(!result.stdout.contains("libpq"))
        }
    #endif
}
