// The Foursquare example: a Server subclass that authenticates with an `oauth_token` query
// parameter, record classes with typed accessors, and a venue search whose recorded response
// is served over HTTP on 127.0.0.1.
//
//     swift run foursquare-example [--db PATH]

import Foundation
import WebRecord
import WebRecordTesting

let exampleDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let packageRoot = exampleDirectory.deletingLastPathComponent().deletingLastPathComponent()

func run(storePath: String) async throws {
    // 1. A store for the Foursquare schema, with the record class generated for each entity.
    let schema = try Schema(contentsOf: packageRoot.appendingPathComponent("Schemas/Foursquare.json"))
    let store = try RecordStore(path: storePath, schema: schema)
    FoursquareRecords.register(on: store)

    // 2. "Foursquare": the recorded search response, over HTTP on 127.0.0.1, and the server
    //    for it, registered for the base class so that it serves every entity.
    let loopback = try LoopbackHTTPServer()
    let recorded = try Data(contentsOf: exampleDirectory.appendingPathComponent("venues.json"))
    loopback.route(
        "/v2/venues/search", LoopbackResponse(headers: ["Content-Type": "application/json"], body: Array(recorded)))
    store.register(
        FoursquareServer(baseURL: loopback.url("/v2/"), oauthToken: "dummy-token"), for: FoursquareRecord.self)
    Redaction.secretNames.insert("oauth_token")  // redacted from logs and error messages

    // 3. The search: venues, with their categories, locations and contacts, from response.venues.
    let result = try await Venue.startRequestForResult(urn: "venues/search", data: ["ll": "40.7,-74.0"], in: store)
    let venues = result.records
    for request in loopback.requests {
        print("GET \(request.path)?\(request.queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))")
    }
    let changes = result.changes
    print(
        "\(venues.count) venues; records \(changes.inserted) new, \(changes.updated) updated, \(changes.unchanged) unchanged"
    )

    // 4. Each venue, in response order, with its categories (an ordered to-many) and location.
    print("\nVenues:")
    for (index, venue) in venues.enumerated() {
        let categories = venue.categories.compactMap(\.name).joined(separator: ", ")
        let number = (index < 9 ? " " : "") + "\(index + 1)."
        print(
            "  \(number) \(venue.name ?? "?") — \(categories.isEmpty ? "no category" : categories) — "
                + (venue.location?.summary ?? "no location"))
    }
    print(
        "In the store: \(try store.count("Venue")) venues, \(try store.count("FSCategory")) categories, "
            + "\(try store.count("Location")) locations")

    // 5. The category that most venues list is one record, and its to-one `venue` is one venue.
    let listings = (result.response.body.value(atKeyPath: "response.venues")?.arrayValue ?? []).flatMap { venue in
        (venue["categories"]?.arrayValue ?? []).compactMap { category in
            category["id"].map { (categoryID: $0, venue: venue["name"]?.stringValue ?? "?") }
        }
    }
    guard
        let (id, shared) = Dictionary(grouping: listings, by: \.categoryID).max(by: { $0.value.count < $1.value.count }
        ),
        let category = try store.fetch(FSCategory.self, where: "id = ?", arguments: [id.stringValue ?? ""]).first
    else { throw ExampleFailure("the response lists no category") }
    let name = category.name ?? "?"
    let owner = category.venue?.name ?? "none"
    print("\nOne category, \(shared.count) venues:")
    print("  The response lists \"\(name)\" for \(shared.map(\.venue).joined(separator: "; ")).")
    print(
        "  The store keeps \(try store.count("FSCategory", where: "id = ?", arguments: [id.stringValue ?? ""])) "
            + "\"\(name)\" category, and it belongs to one venue: \(owner).")
    print("  FSCategory.venue is to-one, as in MMRecord's model, so the venue populated last keeps it;")
    print("  \(shared.map(\.venue).filter { $0 != owner }.joined(separator: "; ")) list no category in the store.")
}

/// A failure of the example itself.
struct ExampleFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Command line

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.isEmpty || (arguments.count == 2 && arguments[0] == "--db") else {
    FileHandle.standardError.write(Data("usage: foursquare-example [--db PATH]\n".utf8))
    exit(2)
}
do {
    if let path = arguments.last {
        print("Store: \(path)")
        try await run(storePath: path)
    } else {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("foursquare-example-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("Store: a temporary file (--db PATH keeps one)")
        try await run(storePath: directory.appendingPathComponent("foursquare.sqlite").path)
    }
} catch {
    FileHandle.standardError.write(Data("foursquare-example: \(error)\n".utf8))
    exit(1)
}
