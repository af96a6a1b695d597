/// A growable stack of values in manually managed memory, so that finished elements can be
/// moved out in bulk without reference counting.
struct ScratchStack<Element>: ~Copyable {
    var base: UnsafeMutablePointer<Element>
    var count: Int = 0
    var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count &+= 1
    }

    @inline(never)
    mutating func grow() {
        let newCapacity = capacity * 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func popLast() -> Element {
        count &-= 1
        return (base + count).move()
    }
}

/// A growable byte buffer for decoding strings that contain escapes.
struct ScratchBytes: ~Copyable {
    var base: UnsafeMutablePointer<UInt8>
    var count: Int = 0
    var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    }

    deinit {
        base.deallocate()
    }

    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count &+ extra > capacity { grow(to: count &+ extra) }
    }

    @inline(never)
    mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ source: UnsafePointer<UInt8>, count length: Int) {
        reserve(length)
        (base + count).initialize(from: source, count: length)
        count &+= length
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    func makeString() -> String {
        String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }
}

/// A sequence that *moves* elements out of manually managed memory.
///
/// `Array.append(contentsOf:)` reserves `underestimatedCount` and calls `_copyContents`,
/// which here is a single `moveInitialize`: the array is built with no per-element work and
/// no reference counting. The iterator moves elements one by one, so the result is the same
/// if a caller iterates instead. The sequence must be consumed entirely exactly once.
struct MovingSequence<Element>: Sequence {
    let start: UnsafeMutablePointer<Element>
    let count: Int

    struct Iterator: IteratorProtocol {
        var current: UnsafeMutablePointer<Element>
        let end: UnsafeMutablePointer<Element>

        @inline(__always)
        mutating func next() -> Element? {
            guard current < end else { return nil }
            let element = current.move()
            current += 1
            return element
        }
    }

    @inline(__always)
    var underestimatedCount: Int { count }

    @inline(__always)
    func makeIterator() -> Iterator { Iterator(current: start, end: start + count) }

    @inline(__always)
    func _copyContents(initializing buffer: UnsafeMutableBufferPointer<Element>) -> (Iterator, Int) {
        let moved = Swift.min(count, buffer.count)
        if moved > 0, let destination = buffer.baseAddress {
            destination.moveInitialize(from: start, count: moved)
        }
        return (Iterator(current: start + moved, end: start + count), moved)
    }
}
