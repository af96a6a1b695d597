// The parser's part of JSONStreamReader: walking a key path through the objects that lead to
// the streamed array, and parsing that array's elements, over a window of the input.
//
// Both run JSONParser's own code (`parseValue(above:)`, `scanKeyAndColon()`, `openContainer`)
// and replicate parseDocument's handling of the containers they open themselves, so that every
// error, its kind, detail and offset, is the one JSONReader reports for the whole document.
//
// A window is the part of the input the reader holds: the parser sees its end as the end of
// input. When the input goes on past the window, a failure at (or a few bytes from) the
// window's end may only mean that the window stops there; the reader then reads more and
// parses again from the last checkpoint (see `JSONStreamReader.isTruncation(_:at:)`).
// That is sound because the parser never decides anything on a byte it has not reached, except
// within a few bytes ahead of its position (a literal, a UTF-8 sequence, an escape), and every
// decision that the end of input changes ends in a throw there (a number that stops at the end
// is followed by the check for the `,` or bracket after it, which throws).

/// Where the walk down a key path resumes after the reader read more: a member of the object
/// at `level` (0 for the top-level object; -1 before the top-level value), at `position`.
struct PathCheckpoint {
    /// The number of path objects open, minus one; -1 before the top-level value.
    var level = -1
    /// Where the member (or the top-level value) starts, in the window.
    var position = 0
    /// Whether the member would be the object's first: then `}` may close the object.
    var isFirst = true
}

/// What the walk down a key path found.
enum PathWalkEnd {
    /// The value at the key path is an array, whose `[` is at this position in the window; the
    /// parser's containers are the path objects and the array.
    case stream(arrayOpen: Int)
    /// Nothing to stream: the document is to be read whole.
    case whole
}

/// How far a run over a streamed array's elements got: the elements complete so far, and
/// where the next starts.
struct ElementProgress {
    /// Where the next element starts in the window: after `[` or after `,`.
    var position: Int
    /// Whether the next element would be the array's first: then `]` may close the array.
    var isFirst: Bool
    /// The elements complete on the parser's value stack.
    var count = 0
    /// The bytes of element text complete in this batch, separators and whitespace included.
    var batchBytes = 0
}

/// What ended a run over a streamed array's elements.
enum ElementRunEnd {
    /// The batch reached its byte limit at an element boundary; more elements may follow.
    case batchFull
    /// The array closed: its `]` is just before the progress's position.
    case arrayClosed
}

extension JSONParser {
    /// A parser over a window of a streamed input, with the layout cache and the repeat cache
    /// of the windows before, so that the objects of one shape share one layout, and an object
    /// repeated in a later batch is shared, across batches.
    ///
    /// `openContainers` containers are pushed as already open: they stand for the containers
    /// around the window's position, which count towards `maximumDepth`.
    init(
        window bytes: UnsafePointer<UInt8>, count: Int, maximumDepth: Int, openContainers: Int,
        layoutCache: consuming LayoutCache, repeats: RepeatCache, projection: KeyProjection? = nil
    ) {
        self.projection = projection
        self.bytes = bytes
        end = count
        self.maximumDepth = maximumDepth
        repeatedKeys = nil
        self.repeats = repeats
        keyCache = KeyCache(inputLength: count)
        self.layoutCache = layoutCache
        for _ in 0..<openContainers {
            containers.push(OpenContainer(isObject: true, valueStart: 0, keyStart: 0))
        }
    }

    /// Ends the parser, giving back its layout cache for the next window. The values still on
    /// its stack are released.
    consuming func takeLayoutCache() -> LayoutCache {
        layoutCache
    }

    /// Moves the first `count` values of the value stack to the end of `array`, and releases
    /// any value above them (the parts of an element that did not complete).
    mutating func moveValues(_ count: Int, to array: inout [JSONValue]) {
        if values.count > count {
            (values.base + count).deinitialize(count: values.count &- count)
            values.count = count
        }
        array.append(contentsOf: MovingSequence(start: values.base, count: count))
        values.count = 0
    }

    // MARK: Key path

    /// Walks from `checkpoint` down the objects whose keys are `components`, parsing every
    /// other member whole (and dropping it), until the value at the full path starts with `[`
    /// or the top-level object closes. A `{` at a component before the last is entered, as
    /// are the objects of a repeated key: the last value of a key is the one that counts.
    ///
    /// `checkpoint` is moved to each member start as the walk goes, so that a walk cut short
    /// by the window's end can resume there.
    mutating func walkKeyPath(
        _ components: [[UInt8]], from checkpoint: inout PathCheckpoint
    ) throws(JSONParseFailure) -> PathWalkEnd {
        if checkpoint.level < 0 {
            if end >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
                throw JSONParseFailure(.unexpectedCharacter, at: 0, "a UTF-8 byte order mark is not allowed")
            }
            skipWhitespace()
            if position == end {
                throw JSONParseFailure(.emptyInput, at: position)
            }
            switch bytes[position] {
            case UInt8(ascii: "["):
                try openContainer(isObject: false)
                return .stream(arrayOpen: position)
            case UInt8(ascii: "{") where !components.isEmpty:
                try openContainer(isObject: true)
                position &+= 1
                checkpoint = PathCheckpoint(level: 0, position: position, isFirst: true)
            default:
                return .whole
            }
        }
        var isFirst = checkpoint.isFirst
        members: while true {
            skipWhitespace()
            if isFirst && position < end && bytes[position] == UInt8(ascii: "}") {
                position &+= 1
                _ = containers.popLast()
                if containers.count == 0 { return .whole }
            } else {
                try scanKeyAndColon()
                let level = containers.count &- 1
                if takeKey(matching: components[level]) && position < end {
                    let isLast = level == components.count &- 1
                    if isLast && bytes[position] == UInt8(ascii: "[") {
                        try openContainer(isObject: false)
                        return .stream(arrayOpen: position)
                    }
                    if !isLast && bytes[position] == UInt8(ascii: "{") {
                        try openContainer(isObject: true)
                        position &+= 1
                        isFirst = true
                        checkpoint = PathCheckpoint(level: level &+ 1, position: position, isFirst: true)
                        continue members
                    }
                }
                try parseValue(above: containers.count)
                _ = values.popLast()
            }
            // A member is complete: the next one, or the end of this object and of the members
            // of the objects around it that it closes.
            while true {
                skipWhitespace()
                guard position < end else {
                    throw JSONParseFailure(.unexpectedEnd, at: position, "expected ',' or '}'")
                }
                let next = bytes[position]
                if next == UInt8(ascii: ",") {
                    position &+= 1
                    skipWhitespace()
                    isFirst = false
                    checkpoint = PathCheckpoint(level: containers.count &- 1, position: position, isFirst: false)
                    continue members
                }
                guard next == UInt8(ascii: "}") else {
                    throw JSONParseFailure(.unexpectedCharacter, at: position, "expected ',' or '}'")
                }
                position &+= 1
                _ = containers.popLast()
                if containers.count == 0 { return .whole }
            }
        }
    }

    /// Pops the key just scanned, and returns whether its bytes are `component`'s.
    private mutating func takeKey(matching component: [UInt8]) -> Bool {
        let key = keys.popLast()
        if key.length < 0 {
            let decoded = escapedKeys.popLast()
            return component.withUnsafeBufferPointer { sameUTF8(decoded, $0) }
        }
        guard key.length == component.count else { return false }
        return component.withUnsafeBufferPointer { component in
            guard let base = component.baseAddress else { return true }
            return equalBytes(bytes + key.offset, base, key.length)
        }
    }

    // MARK: Elements

    /// Parses the elements of a streamed array from `progress`, pushing each on the value stack,
    /// until the array closes or `progress.batchBytes` reaches `byteLimit` at an element
    /// boundary. The containers open around the elements are those on the container stack.
    ///
    /// `progress` is moved past each complete element (with its `,` or `]`), so that a run cut
    /// short by the window's end can resume there.
    mutating func parseElements(
        from progress: inout ElementProgress, byteLimit: Int
    ) throws(JSONParseFailure) -> ElementRunEnd {
        let floor = containers.count
        position = progress.position
        if projection != nil, floor > 0 {
            // The elements are records: their members are chosen.
            containers.base[floor &- 1].isObject = false
            containers.base[floor &- 1].isProjected = true
        }
        while true {
            skipWhitespace()
            if progress.isFirst && position < end && bytes[position] == UInt8(ascii: "]") {
                position &+= 1
                commitElement(to: &progress, counting: false)
                return .arrayClosed
            }
            try parseValue(above: floor)
            skipWhitespace()
            guard position < end else {
                throw JSONParseFailure(.unexpectedEnd, at: position, "expected ',' or ']'")
            }
            let next = bytes[position]
            if next == UInt8(ascii: ",") {
                position &+= 1
                commitElement(to: &progress, counting: true)
                if progress.batchBytes >= byteLimit { return .batchFull }
                continue
            }
            guard next == UInt8(ascii: "]") else {
                throw JSONParseFailure(.unexpectedCharacter, at: position, "expected ',' or ']'")
            }
            position &+= 1
            commitElement(to: &progress, counting: true)
            return .arrayClosed
        }
    }

    /// Moves `progress` to `position`, after an element (when `counting`) and its separator.
    @inline(__always)
    private func commitElement(to progress: inout ElementProgress, counting: Bool) {
        progress.batchBytes &+= position &- progress.position
        progress.position = position
        progress.isFirst = false
        if counting { progress.count &+= 1 }
    }
}
