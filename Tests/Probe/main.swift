// webrecord-probe: runs one store scenario that must stop the process, so that a test can
// watch it from outside as a child process.
//
//     webrecord-probe write-inside-write <store path>
//     webrecord-probe write-inside-read <store path>   (in memory: the read and write share one connection)
//     webrecord-probe unreadable-key      (a key another program made unreadable, read as non-optional)
//     webrecord-probe populate <store path>  (one Tag; prints "populated", or the error and exits 1)
//     webrecord-probe count <store path>     (prints the number of Tags, or the error and exits 1)
//
// populate and count run the library in a process of its own, for the tests that need its
// limits or user to differ (a file-size limit, an ordinary user) without changing the runner's.
import Foundation
import WebRecord

let schema = try Schema(
    json: #"{"entities": {"Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}}}}}"#)
let arguments = CommandLine.arguments.dropFirst()
guard let scenario = arguments.first else {
    FileHandle.standardError.write(Data("usage: webrecord-probe <scenario> [store path]\n".utf8))
    exit(2)
}

switch scenario {
case "write-inside-write":
    guard let path = arguments.dropFirst().first else { exit(2) }
    let store = try RecordStore(path: path, schema: schema)
    try store.write { connection in
        try connection.execute(#"INSERT INTO "Tag" ("_entity", "name") VALUES ('Tag', 'outer')"#)
        try store.write { inner in
            try inner.execute(#"INSERT INTO "Tag" ("_entity", "name") VALUES ('Tag', 'inner')"#)
        }
    }
case "write-inside-read":
    let store = try RecordStore(inMemory: schema)
    try store.read { _ in
        try store.write { connection in
            try connection.execute(#"INSERT INTO "Tag" ("_entity", "name") VALUES ('Tag', 'inner')"#)
        }
    }
case "unreadable-key":
    let numbered = try Schema(
        json: #"{"entities": {"Item": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}}}}}"#)
    let store = try RecordStore(inMemory: numbered)
    // As another program might: text where WebRecord stores an integer key.
    try store.write { try $0.execute(#"INSERT INTO "Item" ("_entity", "id") VALUES ('Item', 'abc')"#) }
    for record in try store.fetch("Item") {
        let id: Int64 = record[primaryKey: "id"]
        print("read \(id)")
    }
case "populate", "count":
    guard let path = arguments.dropFirst().first else { exit(2) }
    do {
        let store = try RecordStore(path: path, schema: schema)
        if scenario == "populate" {
            _ = try store.populate([["name": "probe"]], entity: "Tag")
            print("populated")
        } else {
            print(try store.count("Tag"))
        }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
default:
    FileHandle.standardError.write(Data("webrecord-probe: unknown scenario \(scenario)\n".utf8))
    exit(2)
}
// Reaching here means the scenario did not stop the process.
print("returned")
