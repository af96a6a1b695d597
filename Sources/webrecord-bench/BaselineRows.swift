import WebRecord

/// The rows a population of a generated stream stores, built straight from the generator's
/// model (no JSON), for the raw-SQLite baseline: what prepared INSERTs alone cost.
enum BaselineRows {
    /// One table's INSERT statement and its rows, in the table's column order.
    struct Table {
        let insertSQL: String
        let rows: [[DatabaseValue]]
    }

    /// The tables for `generator`'s stream, with the columns of `store`'s layout.
    ///
    /// - Throws: a store error when the layout cannot be read.
    static func tables(for generator: AppNetGenerator, store: RecordStore) throws -> [Table] {
        var userRowIDs: [Int: Int64] = [:]
        var users: [[String: DatabaseValue]] = []
        var counts: [[String: DatabaseValue]] = []
        var covers: [[String: DatabaseValue]] = []
        var posts: [[String: DatabaseValue]] = []
        var sources: [[String: DatabaseValue]] = []
        for (index, post) in generator.posts.enumerated() {
            let userRowID: Int64
            if let known = userRowIDs[post.userIndex] {
                userRowID = known
            } else {
                userRowID = Int64(users.count + 1)
                userRowIDs[post.userIndex] = userRowID
                let user = generator.users[post.userIndex]
                users.append([
                    "_id": .integer(userRowID), "_entity": .text("User"), "id": .text(user.id),
                    "name": .text(user.name), "avatarImagePath": .text(user.avatarURL),
                    "coverImagePath": .text(user.coverURL),
                ])
                counts.append([
                    "_id": .integer(userRowID), "_entity": .text("Counts"), "user": .integer(userRowID),
                    "followers": .integer(Int64(user.followers)), "following": .integer(Int64(user.following)),
                    "posts": .integer(Int64(user.posts)), "stars": .integer(Int64(user.stars)),
                ])
                covers.append([
                    "_id": .integer(userRowID), "_entity": .text("CoverImage"), "user": .integer(userRowID),
                    "url": .text(user.coverURL), "width": .integer(Int64(user.coverWidth)),
                    "height": .integer(Int64(user.coverHeight)),
                ])
            }
            let postRowID = Int64(index + 1)
            posts.append([
                "_id": .integer(postRowID), "_entity": .text("Post"), "id": .text(post.id),
                "date": .text(post.createdAt.replacingOccurrences(of: "Z", with: ".000Z")), "text": .text(post.text),
                "thread_id": .text(post.threadID), "user": .integer(userRowID),
            ])
            sources.append([
                "_id": .integer(postRowID), "_entity": .text("Source"), "post": .integer(postRowID),
                "clientID": .text(post.clientID), "link": .text("https://alpha.app.net"),
                "name": .text(post.clientName),
            ])
        }
        return try [
            table("User", users, store: store), table("Counts", counts, store: store),
            table("CoverImage", covers, store: store), table("Post", posts, store: store),
            table("Source", sources, store: store),
        ]
    }

    private static func table(_ name: String, _ rows: [[String: DatabaseValue]], store: RecordStore) throws -> Table {
        let columns: [String] = try store.read { connection in
            try connection.rows("PRAGMA table_info(\"\(name)\")").compactMap { row -> String? in
                guard row.count > 1, case .text(let column) = row[1] else { return nil }
                return column
            }
        }
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let sql =
            "INSERT INTO \"\(name)\" (\(columns.map { "\"\($0)\"" }.joined(separator: ", "))) VALUES (\(placeholders))"
        return Table(insertSQL: sql, rows: rows.map { row in columns.map { row[$0] ?? .null } })
    }
}
