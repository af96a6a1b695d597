import Testing

@testable import WebRecord

/// The rows a batch touches, held column-wise by their table (`BatchRows`) and addressed by
/// `RowState` handles: what a row holds, what it held before the population, whether it changed,
/// and that rows stay apart and intact as their columns grow and are freed.
@Suite struct RowStateTests {
    static let schema = """
        {"entities": {
          "Item": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "rank": {"type": "integer"},
                                                     "extra": {"type": "json"}}},
          "Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}}}
        }}
        """

    static func plans() throws -> TablePlans {
        TablePlans(layout: StorageLayout(schema: try Schema(json: schema)))
    }

    static func column(_ name: String, of plan: TablePlan) throws -> Int {
        try #require(plan.columnIndex[name])
    }

    @Test func aNewRowIsNullUntilSetAndAlwaysChanged() throws {
        let plan = try #require(try Self.plans()["Item"])
        let row = RowState(newIn: plan, rowID: 7, entityName: "Item")
        #expect(row.isNew)
        #expect(row.rowID == 7)
        #expect(row.entityName == "Item")
        #expect(Array(row.values) == Array(repeating: DatabaseValue.null, count: plan.columns.count))
        #expect(row.original == nil)
        #expect(row.originalValue(at: 0) == nil)
        #expect(row.hasChangedValues, "a new row is written whatever it holds")
        let rank = try Self.column("rank", of: plan)
        row.set(.integer(3), at: rank)
        #expect(row.values[rank] == .integer(3))
        #expect(row.original == nil, "a new row keeps no stored values")
    }

    @Test func aStoredRowKeepsWhatWasStoredOnlyOnceAValueChanges() throws {
        let plan = try #require(try Self.plans()["Item"])
        let (id, rank) = (try Self.column("id", of: plan), try Self.column("rank", of: plan))
        var stored = Array(repeating: DatabaseValue.null, count: plan.columns.count)
        stored[id] = .text("a")
        stored[rank] = .integer(1)
        let row = RowState(storedIn: plan, rowID: 3, entityName: "Item", values: stored)
        #expect(!row.isNew)
        #expect(!row.hasChangedValues)

        row.set(.integer(1), at: rank)
        #expect(!row.hasChangedValues, "a value given again as stored changes nothing")
        #expect(!plan.rows.flags[row.index].contains(.keepsOriginal), "and keeps no copy")

        row.set(.integer(2), at: rank)
        #expect(row.hasChangedValues)
        #expect(row.values[rank] == .integer(2))
        #expect(row.original == stored)
        #expect(row.originalValue(at: rank) == .integer(1))

        row.values[rank] = .integer(5)
        #expect(row.original == stored, "what was stored is kept from the first change")
        row.set(.integer(1), at: rank)
        #expect(!row.hasChangedValues, "set back, the row is as stored")
    }

    @Test func aStoredJSONValueIsTakenInItsCanonicalForm() throws {
        let plan = try #require(try Self.plans()["Item"])
        let extra = try Self.column("extra", of: plan)
        var stored = Array(repeating: DatabaseValue.null, count: plan.columns.count)
        stored[extra] = .text(#"{"b": 1, "a": [true, null]}"#)
        let row = RowState(storedIn: plan, rowID: 1, entityName: "Item", values: stored)
        let canonical = try #require(ValueCoercion.canonicalJSON(#"{"b": 1, "a": [true, null]}"#))
        #expect(row.values[extra] == .text(canonical))
        #expect(!row.hasChangedValues, "the canonical form is what was stored, as the population compares it")
    }

    @Test func rowsAreEqualOnlyWhenTheyAreTheSameRowOfTheSameTable() throws {
        let plans = try Self.plans()
        let (items, tags) = (try #require(plans["Item"]), try #require(plans["Tag"]))
        let first = RowState(newIn: items, rowID: 1, entityName: "Item")
        let second = RowState(newIn: items, rowID: 1, entityName: "Item")
        let tag = RowState(newIn: tags, rowID: 1, entityName: "Tag")
        #expect(first != second, "two rows made apart are two rows, whatever their _id")
        #expect(first.index == tag.index)
        #expect(first != tag, "the same position in another table is another row")
        let set: Set<RowState> = [first, second, tag, first]
        #expect(set.count == 3)
        #expect(set.contains(tag))
    }

    @Test func rowsKeepTheirValuesAsTheColumnsGrowAndAreMarkedOnce() throws {
        let plan = try #require(try Self.plans()["Item"])
        let (id, rank) = (try Self.column("id", of: plan), try Self.column("rank", of: plan))
        var rows: [RowState] = []
        for number in 0..<5_000 {
            if number.isMultiple(of: 2) {
                let row = RowState(newIn: plan, rowID: Int64(number), entityName: "Item")
                row.set(.text("item \(number) with a text longer than a small string"), at: id)
                rows.append(row)
            } else {
                var stored = Array(repeating: DatabaseValue.null, count: plan.columns.count)
                stored[rank] = .integer(Int64(number))
                rows.append(RowState(storedIn: plan, rowID: Int64(number), entityName: "Sub\(number)", values: stored))
            }
        }
        #expect(plan.rows.count == 5_000)
        for (number, row) in rows.enumerated() {
            #expect(row.rowID == Int64(number))
            if number.isMultiple(of: 2) {
                #expect(row.isNew)
                #expect(row.values[id] == .text("item \(number) with a text longer than a small string"))
            } else {
                #expect(row.entityName == "Sub\(number)")
                #expect(row.values[rank] == .integer(Int64(number)))
                #expect(!row.hasChangedValues)
            }
        }
        #expect(plan.rows.mark(rows[10].index))
        #expect(!plan.rows.mark(rows[10].index), "a row is met once")
        #expect(plan.rows.mark(rows[11].index))
        plan.rows.removeAll()
        #expect(plan.rows.count == 0)
        let again = RowState(newIn: plan, rowID: 1, entityName: "Item")
        #expect(again.index == 0, "the freed rows are reused from the start")
        #expect(again.values[id] == .null)
    }
}

extension RowStateTests {
    static let feedSchema = """
        {"entities": {
          "Feed": {"relationships": {"items": {"destination": "Item", "toMany": true, "inverse": "feed"}}},
          "Item": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
                   "relationships": {"feed": {"destination": "Feed", "inverse": "items"}}},
          "Animal": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
                     "subentities": {"key": "kind", "map": {"dog": "Dog", "cat": "Cat"}}},
          "Dog": {"parent": "Animal", "attributes": {"bark": {"type": "string"}}},
          "Cat": {"parent": "Animal", "attributes": {"meow": {"type": "string"}}}
        }}
        """

    @Test func aTableWithNoValueColumnsHoldsRowsAllTheSame() throws {
        let plans = TablePlans(layout: StorageLayout(schema: try Schema(json: Self.feedSchema)))
        let feeds = try #require(plans["Feed"])
        #expect(feeds.columns.isEmpty, "a feed's only link is kept on its items")
        let new = RowState(newIn: feeds, rowID: 1, entityName: "Feed")
        let stored = RowState(storedIn: feeds, rowID: 2, entityName: "Feed", values: [])
        #expect(new.isNew && new.hasChangedValues)
        #expect(Array(new.values).isEmpty)
        #expect(!stored.isNew && !stored.hasChangedValues)
        #expect(stored.original == [])
        #expect((new.rowID, stored.rowID) == (1, 2))
        plans.removeRows()
        #expect(feeds.rows.count == 0)
    }

    @Test func aRecordWithNoValueColumnsIsPopulatedWholeAndStreamed() async throws {
        let schema = try Schema(json: Self.feedSchema)
        let response = #"[{"items": [{"id": 1}, {"id": 2}]}, {"items": [{"id": 3}]}]"#
        let whole = try await PopulatedStore.populating(
            response, after: "[]", schema: schema, entity: "Feed", batchBytes: nil)
        #expect(whole.failure == nil)
        #expect(whole.rows.filter { $0.hasPrefix("Feed:") }.count == 2)
        #expect(whole.rows.filter { $0.hasPrefix("Item:") }.count == 3)
        let streamed = try await PopulatedStore.populating(
            response, after: "[]", schema: schema, entity: "Feed", batchBytes: 1)
        #expect(streamed == whole)
    }

    @Test func aRowThatSwitchedSubEntityLeavesNoCycleBehind() throws {
        let schema = try Schema(json: Self.feedSchema)
        let store = try RecordStore(inMemory: schema)
        let storage = try #require(store.sqlite)
        weak var table: TablePlan?
        weak var rows: BatchRows?
        do {
            let plans = TablePlans(layout: storage.layout)
            let representations = RepresentationSet(
                store: storage, plans: plans, coercion: ValueCoercion(dateFormats: schema.dateFormats))
            let animals = try #require(plans["Animal"])
            let row = RowState(storedIn: animals, rowID: 1, entityName: "Dog", values: [])
            let dog = try representations.representation(of: try #require(schema.entity(named: "Dog")))
            #expect(dog.table === animals, "the representation holds the row's table")
            row.switchedFrom = dog
            #expect(row.switchedFrom === dog)
            table = animals
            rows = animals.rows
        }
        #expect(table == nil, "the table is freed with its graph, though its row holds a representation of it")
        #expect(rows == nil)
    }
}

/// `BatchColumn`, the pointer-held column under a batch's rows and proto-records: elements kept
/// as it grows, each freed exactly once, and storage kept for the next batch when asked.
@Suite struct BatchColumnTests {
    /// Counts its instances alive, so that a column that leaks or frees twice shows.
    final class Tracked {
        nonisolated(unsafe) static var alive = 0
        let value: Int
        init(_ value: Int) {
            self.value = value
            Self.alive += 1
        }
        deinit { Self.alive -= 1 }
    }

    struct Element {
        var tracked: Tracked
        var text: String
    }

    @Test func elementsSurviveGrowthAndAreFreedOnceWhetherOrNotTheStorageIsKept() {
        let before = Tracked.alive
        var column = BatchColumn<Element>()
        for number in 0..<3_000 {
            column.append(Element(tracked: Tracked(number), text: "element \(number) of a column"))
        }
        #expect(column.count == 3_000)
        #expect(Tracked.alive - before == 3_000)
        for number in stride(from: 0, to: 3_000, by: 7) {
            #expect(column[number].tracked.value == number)
            #expect(column.pointer(at: number).pointee.text == "element \(number) of a column")
        }
        column[5] = Element(tracked: Tracked(-5), text: "replaced")
        #expect(Tracked.alive - before == 3_000, "the element replaced is freed")
        column.pointer(at: 6).pointee.text += " in place"
        #expect(column[6].text == "element 6 of a column in place")

        column.removeAll(keepingCapacity: true)
        #expect(column.count == 0)
        #expect(Tracked.alive == before, "every element freed, the storage kept")
        column.append(Element(tracked: Tracked(1), text: "again"))
        #expect(column[0].tracked.value == 1)
        #expect(column[0].text == "again")

        column.append(repeating: Element(tracked: Tracked(2), text: "same"), count: 4)
        #expect(column.count == 5)
        #expect(Array(column.elements(from: 1, count: 4)).allSatisfy { $0.tracked.value == 2 })
        column.removeAll()
        #expect(Tracked.alive == before)
    }
}
