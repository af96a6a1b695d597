/// A growable column of a batch's rows (``BatchRows``) or proto-records
/// (``ProtoRecordArena``), held by pointer and freed by ``removeAll()``, which its holder calls
/// before it goes.
///
/// Reading or writing an element retains no buffer, as an `Array` kept in a class does.
/// Positions are checked in debug builds only: the population addresses elements it made itself.
struct BatchColumn<Element> {
    private var base: UnsafeMutablePointer<Element>?
    private(set) var count = 0
    private var capacity = 0

    subscript(position: Int) -> Element {
        get {
            assert(position >= 0 && position < count, "position out of range")
            return base.unsafelyUnwrapped[position]
        }
        nonmutating set {
            assert(position >= 0 && position < count, "position out of range")
            base.unsafelyUnwrapped[position] = newValue
        }
    }

    /// The element at `position`, in place until the column next grows or is freed.
    func pointer(at position: Int) -> UnsafeMutablePointer<Element> {
        assert(position >= 0 && position < count, "position out of range")
        return base.unsafelyUnwrapped + position
    }

    /// The `count` elements from `start`, in place until the column next grows or is freed.
    func elements(from start: Int, count: Int) -> UnsafeBufferPointer<Element> {
        assert(start >= 0 && count >= 0 && start + count <= self.count, "position out of range")
        return UnsafeBufferPointer(start: base.map { $0 + start }, count: count)
    }

    /// Appends `element`, moved into place: an element holding references (a proto-record's
    /// fields) is not copied, which would retain each of them and release them again.
    mutating func append(_ element: consuming Element) {
        reserve(count + 1)
        (base.unsafelyUnwrapped + count).initialize(to: consume element)
        count += 1
    }

    mutating func append(repeating element: Element, count added: Int) {
        // Nothing to add (a table with no value columns): the storage may not exist.
        guard added > 0 else { return }
        reserve(count + added)
        (base.unsafelyUnwrapped + count).initialize(repeating: element, count: added)
        count += added
    }

    private mutating func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        let grown = max(needed, capacity * 2, 64)
        let storage = UnsafeMutablePointer<Element>.allocate(capacity: grown)
        if let base {
            storage.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = storage
        capacity = grown
    }

    /// Frees every element, and the storage unless `keepingCapacity`.
    mutating func removeAll(keepingCapacity: Bool = false) {
        guard let base else { return }
        base.deinitialize(count: count)
        count = 0
        guard !keepingCapacity else { return }
        base.deallocate()
        self.base = nil
        capacity = 0
    }
}
