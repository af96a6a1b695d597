/// What changed between two results of an observed fetch: the deletions, insertions, moves and
/// modifications that take a table or collection view from the old results to the new ones in
/// one batch update.
///
/// `Position` is where a record is in the results: an `Int` index for flat results, a
/// ``RecordPosition`` (section and item) for results in sections.
///
/// Records are compared by identity (their row ID):
///
/// - ``deletions``: the old positions of the records absent from the new results.
/// - ``insertions``: the new positions of the records absent from the old results.
/// - ``moves``: of the records in both results, a largest set whose old order is also their new
///   order (a longest increasing subsequence) stays in place; every other one moves from its old
///   position to its new one. There are as few moves as can be.
/// - ``modifications``: the records in both results whose content changed, moved or not, with
///   their old and new positions. A record that moved and changed is in both ``moves`` and
///   ``modifications``.
///
/// Applied to the old results by UIKit's batch-update rules, a change set gives the new ones:
///
/// 1. Remove the deletions and the sources of the moves (old positions).
/// 2. Insert the insertions and the targets of the moves (new positions), lowest first.
/// 3. Replace the records at the new positions of the modifications.
///
/// ## Sections
///
/// A section is a run of records with the same section key. A section whose key is in both
/// results survives; ``deletedSections`` are the old sections whose key is absent from the new
/// results and ``insertedSections`` the new sections whose key is absent from the old ones.
/// Deleting a section removes its rows and inserting one brings its rows, so:
///
/// - The rows of a deleted section are not in ``deletions``, nor those of an inserted section in
///   ``insertions``.
/// - As UIKit moves no row out of a deleted section or into an inserted one, a record that leaves
///   a deleted section for a surviving one is an insertion at its new position, and a record
///   that leaves a surviving section for an inserted one is a deletion at its old position.
///   Neither is a move, nor a modification.
/// - A record that goes from one surviving section to another is a move. Within surviving
///   sections, moves are as few as in flat results.
///
/// Applied to old sectioned results, a change set gives the new ones:
///
/// 1. Remove the deleted rows and the sources of the moves (old positions), and the deleted
///    sections.
/// 2. Insert the inserted sections, whole, with their new rows.
/// 3. Insert the inserted rows and the targets of the moves (new positions), lowest first.
/// 4. Replace the records at the new positions of the modifications.
///
/// With UIKit, steps 1 to 3 are one `performBatchUpdates` (`deleteSections`, `insertSections`,
/// `deleteItems`, `insertItems`, `moveItem`), and step 4 reconfigures or reloads the modified
/// items at their new positions after it.
///
/// A section key normally sorts first, so that each key makes one section and surviving
/// sections keep their relative order. Should a key come back after another one, each of its
/// runs is a section, matched with the run of the same rank on the other side; should surviving
/// sections change their relative order, those that cannot keep their place are deleted and
/// inserted. Either way the change set still applies.
public struct ChangeSet<Position: Hashable & Sendable>: Sendable, Hashable {
    /// A record in both results whose content changed.
    public struct Modification: Sendable, Hashable {
        /// The record's position in the old results.
        public var old: Position
        /// The record's position in the new results.
        public var new: Position
    }

    /// A record in both results that moved.
    public struct Move: Sendable, Hashable {
        /// The record's position in the old results.
        public var from: Position
        /// The record's position in the new results.
        public var to: Position
    }

    /// The old indices of the sections absent from the new results, ascending; empty for flat
    /// results.
    public var deletedSections: [Int] = []
    /// The new indices of the sections absent from the old results, ascending; empty for flat
    /// results.
    public var insertedSections: [Int] = []
    /// The old positions of the deleted records, ascending.
    public var deletions: [Position] = []
    /// The new positions of the inserted records, ascending.
    public var insertions: [Position] = []
    /// The records whose content changed, by ascending new position.
    public var modifications: [Modification] = []
    /// The records that moved, by ascending new position.
    public var moves: [Move] = []

    /// Whether nothing changed.
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deletions.isEmpty && insertions.isEmpty
            && modifications.isEmpty && moves.isEmpty
    }
}

/// A record's place in sectioned results: its section's index, and its index in the section.
///
/// UIKit's index path for it is `IndexPath(item: position.item, section: position.section)`.
public struct RecordPosition: Sendable, Hashable, Comparable {
    /// The index of the record's section.
    public var section: Int
    /// The index of the record in its section.
    public var item: Int

    /// The position of the record at `item` in the section at `section`.
    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    /// Whether `lhs` comes before `rhs`: by section, then by item.
    public static func < (lhs: RecordPosition, rhs: RecordPosition) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }
}
