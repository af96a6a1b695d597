// webrecord-probe: runs one store scenario that must stop the process, so that a test can
// watch it from outside as a child process.
//
//     webrecord-probe write-inside-write <store path>
//     webrecord-probe write-inside-read <store path>   (in memory: the read and write share one connection)
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
default:
    FileHandle.standardError.write(Data("webrecord-probe: unknown scenario \(scenario)\n".utf8))
    exit(2)
}
// Reaching here means the reentrant call did not stop the process.
print("returned")
