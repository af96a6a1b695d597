// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "WebRecord",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "WebRecord", targets: ["WebRecord"]),
        .library(name: "WebRecordTesting", targets: ["WebRecordTesting"]),
        .library(name: "WebRecordModelImport", targets: ["WebRecordModelImport"]),
        // PostgreSQL support, in a product of its own: an app using only `WebRecord` needs no libpq.
        .library(name: "WebRecordPostgreSQL", targets: ["WebRecordPostgreSQL"]),
        .executable(name: "webrecord", targets: ["webrecord"]),
        .executable(name: "webrecord-bench", targets: ["webrecord-bench"]),
    ],
    targets: [
        .systemLibrary(
            name: "WebRecordSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(name: "WebRecord", dependencies: ["WebRecordSQLite"]),
        .systemLibrary(
            name: "WebRecordLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(name: "WebRecordPostgreSQL", dependencies: ["WebRecord", "WebRecordLibPQ"]),
        .target(name: "WebRecordTesting", dependencies: ["WebRecord"]),
        .target(name: "WebRecordModelImport", dependencies: ["WebRecord"]),
        .executableTarget(
            name: "webrecord", dependencies: ["WebRecord", "WebRecordModelImport", "WebRecordPostgreSQL"]),
        // `--phase postgres` starts a private PostgreSQL server as the tests do (PostgreSQLTestSupport).
        .executableTarget(
            name: "webrecord-bench",
            dependencies: ["WebRecord", "WebRecordTesting", "WebRecordPostgreSQL", "PostgreSQLTestSupport"]
        ),
        // A peer the benchmark's `--phase peers` runs: the importer a developer writes without a
        // framework (Foundation's JSONSerialization and SQLite's C API), untuned (Scripts/peers/).
        .executableTarget(name: "peer-handwritten-swift", dependencies: ["WebRecordSQLite"]),
        // The examples use record classes that `webrecord generate-swift` wrote (their Generated/
        // folders; Scripts/generate-swift-examples): a warning in them fails the build.
        .executableTarget(
            name: "appnet-example",
            dependencies: ["WebRecord", "WebRecordTesting"],
            path: "Examples/AppNet",
            exclude: ["README.md", "LICENSE-fixtures", "posts.json"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        .executableTarget(
            name: "foursquare-example",
            dependencies: ["WebRecord", "WebRecordTesting"],
            path: "Examples/Foursquare",
            exclude: ["README.md", "LICENSE-fixtures", "venues.json"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        .executableTarget(
            name: "jsonapi-example",
            dependencies: ["WebRecord", "WebRecordTesting"],
            path: "Examples/JSONAPIBlog",
            exclude: ["README.md", "Blog.json", "articles-1.json", "articles-2.json"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        .target(
            name: "AtlassianRecords",
            dependencies: ["WebRecord"],
            path: "Examples/Atlassian",
            exclude: ["README.md"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        .executableTarget(name: "webrecord-probe", dependencies: ["WebRecord"], path: "Tests/Probe"),
        .target(name: "TestSupport", dependencies: ["WebRecord", "WebRecordTesting"], path: "Tests/TestSupport"),
        // A private PostgreSQL server for the tests: initdb into a temporary directory, a Unix socket there.
        .target(
            name: "PostgreSQLTestSupport", dependencies: ["WebRecordPostgreSQL", "TestSupport"],
            path: "Tests/PostgreSQLTestSupport"
        ),
        .testTarget(
            name: "WebRecordPostgreSQLTests",
            dependencies: [
                "WebRecord", "WebRecordPostgreSQL", "PostgreSQLTestSupport", "TestSupport", "WebRecordTesting",
            ]
        ),
        .testTarget(
            name: "WebRecordTests",
            dependencies: ["WebRecord", "WebRecordTesting", "TestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "WebRecordModelImportTests",
            dependencies: ["WebRecordModelImport", "WebRecord", "TestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "webrecordTests",
            dependencies: [
                "WebRecord", "WebRecordModelImport", "WebRecordTesting", "TestSupport", "PostgreSQLTestSupport",
            ],
            resources: [.copy("Fixtures")]
        ),
        // A module with the shape of swift-log's `Logging`, to test a bridge beside it.
        .target(name: "Logging", path: "Tests/LoggingShape"),
        .testTarget(name: "LoggingBridgeTests", dependencies: ["WebRecord", "WebRecordTesting", "Logging"]),
        // Every swift block of README.md and Docs/*.md, compiled; README.md's example also runs.
        // Tests/DocSnippetsTests/generate.py writes both from the documents.
        .executableTarget(
            name: "readme-example", dependencies: ["WebRecord"], path: "Tests/ReadmeExample",
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        .testTarget(
            name: "DocSnippetsTests",
            dependencies: ["WebRecord", "WebRecordPostgreSQL", "WebRecordTesting", "TestSupport", "Logging"],
            exclude: ["generate.py"]
        ),
        // Record subclasses as users write them, consumed across isolation: a warning fails the
        // build (Docs/Records.md, "Records and concurrency").
        .testTarget(
            name: "RecordSendabilityTests",
            dependencies: ["WebRecord", "WebRecordTesting", "TestSupport"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        // Classes generated from a schema of names Swift or Record already uses, and their tests.
        .target(
            name: "GeneratedClashRecords",
            dependencies: ["WebRecord"],
            path: "Tests/GeneratedClashRecords",
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        .testTarget(
            name: "GeneratedRecordsTests",
            dependencies: ["WebRecord", "TestSupport", "AtlassianRecords", "GeneratedClashRecords"],
            resources: [.copy("Clashes.json")],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
