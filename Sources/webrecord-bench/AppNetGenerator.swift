import WebRecord
import WebRecordTesting

/// Generates App.net-shaped stream responses, deterministically, for the benchmark.
///
/// The shape follows `Tests/WebRecordTests/Fixtures/mmrecord/appnet-posts.json` (App.net's
/// `stream/0/posts/stream/global`): `{"data": [post, ...], "meta": {...}}`, each post carrying
/// its `source` and its full `user` (with `avatar_image`, `cover_image`, `counts` and
/// `description`). Users repeat across posts as in real streams: there is one user for every
/// 20 posts, picked with a skew so some post often and most rarely. For 20,000 posts that
/// is about 26 MB of JSON and about 43,000 records (Post, Source, User, Counts, CoverImage).
///
/// The same seed gives the same bytes on every run and every machine.
struct AppNetGenerator {
    /// A user, as every post of theirs repeats it.
    struct User {
        var id: String
        var username: String
        var name: String
        var description: String
        var avatarURL: String
        var coverURL: String
        var coverWidth: Int
        var coverHeight: Int
        var followers: Int
        var following: Int
        var posts: Int
        var stars: Int
        var createdAt: String
    }

    /// A post, with the index of its user.
    struct Post {
        var id: String
        var createdAt: String
        var text: String
        var threadID: String
        var replyTo: String?
        var userIndex: Int
        var clientID: String
        var clientName: String
        var numStars: Int
    }

    private(set) var users: [User]
    private(set) var posts: [Post]

    /// The seed of the benchmark's stream.
    static let defaultSeed: UInt64 = 0x5EED_AD17

    /// Generates `postCount` posts and their users from `seed`, every post's and user's id
    /// `idOffset` above the default stream's.
    ///
    /// Streams generated with offsets at least `postCount` apart share no post and no user: the
    /// posts' ids of one stream span `postCount` numbers, and its users' fewer.
    init(postCount: Int, seed: UInt64 = defaultSeed, idOffset: Int = 0) {
        var random = SeededRandom(seed: seed)
        let userCount = max(1, postCount / 20)
        var users: [User] = []
        users.reserveCapacity(userCount)
        for index in 0..<userCount {
            let username = Self.word(&random) + Self.word(&random) + String(index)
            users.append(
                User(
                    id: String(1000 + idOffset + index * 7),
                    username: username,
                    name: Self.sentence(&random, words: 2),
                    description: Self.sentence(&random, words: 3 + random.next(below: 4)),
                    avatarURL: "https://d2rfichhc2fb9n.cloudfront.net/image/4/" + Self.token(&random, length: 40),
                    coverURL: "https://d2rfichhc2fb9n.cloudfront.net/image/4/" + Self.token(&random, length: 44),
                    coverWidth: 960 + random.next(below: 100),
                    coverHeight: 260 + random.next(below: 140),
                    followers: random.next(below: 5000),
                    following: random.next(below: 800),
                    posts: random.next(below: 20000),
                    stars: random.next(below: 500),
                    createdAt: Self.timestamp(1_344_000_000 + random.next(below: 8_000_000))))
        }
        let clients = (0..<12).map { index in
            (
                id: Self.token(&random, length: 32),
                name: ["Alpha", "Felix", "Netbot", "Riposte", "Rivr", "Zephyr"][index % 6]
            )
        }
        var posts: [Post] = []
        posts.reserveCapacity(postCount)
        let firstID = 1_644_000 + idOffset
        for index in 0..<postCount {
            let id = firstID + postCount - index
            // Quadratic skew: low user indices post often, but nearly every user appears.
            let unit = Double(random.next(below: 1 << 30)) / Double(1 << 30)
            let userIndex = min(userCount - 1, Int(unit * unit * Double(userCount)))
            let replies = random.next(below: 4) == 0
            let client = clients[random.next(below: clients.count)]
            posts.append(
                Post(
                    id: String(id),
                    createdAt: Self.timestamp(1_353_465_222 - index * 3),
                    text: Self.postText(&random),
                    threadID: String(replies ? id - 1 - random.next(below: 40) : id),
                    replyTo: replies ? String(id - 1 - random.next(below: 5)) : nil,
                    userIndex: userIndex,
                    clientID: client.id,
                    clientName: client.name,
                    numStars: random.next(below: 3)))
        }
        self.users = users
        self.posts = posts
    }

    /// The same stream with about a tenth of it changed: every tenth post's text and stars,
    /// and every tenth user's follower count.
    func changed() -> AppNetGenerator {
        var copy = self
        for index in stride(from: 0, to: copy.posts.count, by: 10) {
            copy.posts[index].text += " (edited)"
            copy.posts[index].numStars += 1
        }
        for index in stride(from: 0, to: copy.users.count, by: 10) {
            copy.users[index].followers += 1
        }
        return copy
    }

    /// The number of distinct users the posts name.
    var distinctUserCount: Int { Set(posts.map(\.userIndex)).count }

    /// The records a population of this stream holds: a Post and a Source per post, and a
    /// User, Counts and CoverImage per distinct user.
    var recordCount: Int { posts.count * 2 + distinctUserCount * 3 }

    // MARK: - JSON

    /// The response as UTF-8 JSON bytes.
    func json() -> [UInt8] {
        page(posts[...], next: nil)
    }

    /// The stream as `count` pages of (nearly) equal size, as a paged API serves it: each page's
    /// `meta.next` names the next page's URN, `page/INDEX`; the last page has none.
    func pages(_ count: Int) -> [[UInt8]] {
        let size = (posts.count + count - 1) / max(1, count)
        return stride(from: 0, to: posts.count, by: max(1, size)).enumerated().map { index, start in
            let end = min(start + size, posts.count)
            return page(posts[start..<end], next: end < posts.count ? "page/\(index + 1)" : nil)
        }
    }

    private func page(_ posts: ArraySlice<Post>, next: String?) -> [UInt8] {
        var out = JSONBytes()
        out.bytes.reserveCapacity(posts.count * 1400 + 256)
        out.raw("{\"data\":[")
        for (index, post) in posts.enumerated() {
            if index > 0 { out.raw(",") }
            write(post, to: &out)
        }
        out.raw("],\"meta\":{\"code\":200,")
        out.raw(
            "\"max_id\":\"\(posts.first?.id ?? "0")\",\"min_id\":\"\(posts.last?.id ?? "0")\",\"more\":\(next != nil)")
        if let next { out.raw(",\"next\":\"\(next)\"") }
        out.raw("}}")
        return out.bytes
    }

    private func write(_ post: Post, to out: inout JSONBytes) {
        let user = users[post.userIndex]
        out.raw("{\"canonical_url\":")
        out.string("https://alpha.app.net/\(user.username)/post/\(post.id)")
        out.raw(",\"created_at\":")
        out.string(post.createdAt)
        out.raw(",\"entities\":{\"hashtags\":[],\"links\":[],\"mentions\":[")
        if post.replyTo != nil {
            out.raw("{\"id\":\"\(user.id)\",\"len\":\(user.username.utf8.count + 1),\"name\":")
            out.string(user.username)
            out.raw(",\"pos\":0}")
        }
        out.raw("]},\"html\":")
        out.string("<span itemscope=\"https://app.net/schemas/Post\">\(post.text)</span>")
        out.raw(",\"id\":")
        out.string(post.id)
        out.raw(
            ",\"machine_only\":false,\"num_replies\":0,\"num_reposts\":0,\"num_stars\":\(post.numStars),\"reply_to\":")
        if let replyTo = post.replyTo { out.string(replyTo) } else { out.raw("null") }
        out.raw(",\"source\":{\"client_id\":")
        out.string(post.clientID)
        out.raw(",\"link\":\"https://alpha.app.net\",\"name\":")
        out.string(post.clientName)
        out.raw("},\"text\":")
        out.string(post.text)
        out.raw(",\"thread_id\":")
        out.string(post.threadID)
        out.raw(",\"user\":")
        write(user, to: &out)
        out.raw("}")
    }

    private func write(_ user: User, to out: inout JSONBytes) {
        out.raw("{\"avatar_image\":{\"height\":200,\"url\":")
        out.string(user.avatarURL)
        out.raw(",\"width\":200},\"canonical_url\":")
        out.string("https://alpha.app.net/\(user.username)")
        out.raw(",\"counts\":{\"followers\":\(user.followers),\"following\":\(user.following),")
        out.raw(
            "\"posts\":\(user.posts),\"stars\":\(user.stars)},\"cover_image\":{\"height\":\(user.coverHeight),\"url\":")
        out.string(user.coverURL)
        out.raw(",\"width\":\(user.coverWidth)},\"created_at\":")
        out.string(user.createdAt)
        out.raw(",\"description\":{\"entities\":{\"hashtags\":[],\"links\":[],\"mentions\":[]},\"html\":")
        out.string("<span itemscope=\"https://app.net/schemas/Post\">\(user.description)</span>")
        out.raw(",\"text\":")
        out.string(user.description)
        out.raw("},\"id\":")
        out.string(user.id)
        out.raw(",\"locale\":\"en_US\",\"name\":")
        out.string(user.name)
        out.raw(",\"timezone\":\"Europe/Berlin\",\"type\":\"human\",\"username\":")
        out.string(user.username)
        out.raw("}")
    }

    // MARK: - Text

    private static let words = [
        "app", "net", "stream", "post", "swift", "record", "coffee", "morning", "build", "ship", "today",
        "thread", "reply", "great", "ideas", "podcast", "release", "night", "code", "sqlite", "json",
        "fast", "slow", "weekend", "music", "photo", "train", "city", "garden", "rain", "sun", "tea",
    ]

    private static func word(_ random: inout SeededRandom) -> String {
        words[random.next(below: words.count)]
    }

    private static func sentence(_ random: inout SeededRandom, words count: Int) -> String {
        (0..<count).map { _ in word(&random) }.joined(separator: " ")
    }

    /// Post text: 4 to 14 words, now and then a second line or a non-ASCII character, as in
    /// the real stream (so the reader's escape paths are exercised).
    private static func postText(_ random: inout SeededRandom) -> String {
        var text = sentence(&random, words: 4 + random.next(below: 11))
        switch random.next(below: 10) {
        case 0: text += ".\n\nGreat podcasts to connect with us :)"
        case 1: text += " \u{0283}\u{0251}m caf\u{00E9}"
        case 2: text = "@dalton " + text
        default: break
        }
        return text
    }

    private static func token(_ random: inout SeededRandom, length: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        for _ in 0..<length { bytes.append(alphabet[random.next(below: alphabet.count)]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` for Unix seconds, App.net's format.
    static func timestamp(_ seconds: Int) -> String {
        let rest = seconds % 86_400
        let (year, month, day) = DateCoding.civil(fromDays: Int64(seconds / 86_400))
        func two<Number: BinaryInteger>(_ value: Number) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }
}

/// JSON text being written, byte by byte.
struct JSONBytes {
    var bytes: [UInt8] = []

    /// Appends JSON text as is.
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends a JSON string literal, escaping as App.net did (`\n`, `\"`, `\/`-free, `\uXXXX`
    /// for non-ASCII).
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": bytes.append(contentsOf: "\\\"".utf8)
            case "\\": bytes.append(contentsOf: "\\\\".utf8)
            case "\n": bytes.append(contentsOf: "\\n".utf8)
            case "\r": bytes.append(contentsOf: "\\r".utf8)
            case "\t": bytes.append(contentsOf: "\\t".utf8)
            default:
                if scalar.value < 0x20 || scalar.value > 0x7E {
                    let hex = String(scalar.value, radix: 16)
                    bytes.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).utf8)
                } else {
                    bytes.append(UInt8(scalar.value))
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
