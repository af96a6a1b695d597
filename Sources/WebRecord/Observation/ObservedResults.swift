/// One delivery of an observation: the results as they are now, and what changed since the
/// previous delivery.
///
/// The first delivery holds the initial results, with no change set. Each later one follows
/// one or more commits that changed the results; its ``changes`` go from the previous
/// delivery's records to these (Docs/Observation.md, "Applying a change set").
///
/// Not `Sendable`, as the records it holds are not: an observation delivers it to the task
/// iterating it, which may be the main actor.
public struct ObservedResults<RecordClass: Record> {
    /// The records, in the observation's order, as instances of its class.
    public var records: [RecordClass]
    /// The sections, in order, when the observation has a section key; empty otherwise.
    public var sections: [RecordSection]
    /// What changed since the previous delivery, as indices in ``records``; nil on the first
    /// delivery.
    public var changes: ChangeSet<Int>?
    /// The same change as positions in ``sections``, when the observation has a section key.
    public var sectionChanges: ChangeSet<RecordPosition>?

    /// The records of the section at `index`.
    public func records(inSection index: Int) -> ArraySlice<RecordClass> {
        records[sections[index].range]
    }
}

/// A section of observed results: the records that share a value of the section key.
public struct RecordSection: Sendable, Hashable {
    /// The section key's value, as JSON (`webrecord export`'s form).
    public var key: JSONValue
    /// Where the section's records are in ``ObservedResults/records``.
    public var range: Range<Int>
}
