import Foundation

/// The servers registered on a store, by Record class and by entity name.
///
/// Each ``RecordStore`` holds one; register with ``RecordStore/register(_:for:)`` and
/// ``RecordStore/register(_:forEntity:)``. Lookup goes from the most specific registration to
/// the least (see ``server(forEntity:recordClass:schema:)``).
struct ServerRegistry: Sendable {
    private var byClass: [ObjectIdentifier: any Server] = [:]
    private var byEntity: [String: any Server] = [:]

    /// An empty registry.
    init() {}

    /// Registers `server` for a Record class and its subclasses.
    ///
    /// - Parameters:
    ///   - server: the server.
    ///   - recordClass: the class; a later registration for the same class replaces this one.
    mutating func register(_ server: any Server, for recordClass: Record.Type) {
        byClass[ObjectIdentifier(recordClass)] = server
    }

    /// Registers `server` for an entity and its sub-entities.
    ///
    /// - Parameters:
    ///   - server: the server.
    ///   - entityName: the entity; a later registration for the same name replaces this one.
    mutating func register(_ server: any Server, forEntity entityName: String) {
        byEntity[entityName] = server
    }

    /// Removes every registration.
    mutating func removeAll() {
        byClass.removeAll()
        byEntity.removeAll()
    }

    /// The server for a request on an entity through a Record class.
    ///
    /// The most specific registration wins, in this order:
    /// 1. the record class itself;
    /// 2. the entity, by name;
    /// 3. the class's superclasses, nearest first (up to and including ``Record``);
    /// 4. the entity's parent entities, nearest first.
    ///
    /// - Parameters:
    ///   - entityName: the entity requested.
    ///   - recordClass: the class the request was made through (``Record`` for a request by
    ///     entity name on a store with no class registered for it).
    ///   - schema: the schema that knows the entity's parents.
    /// - Returns: the server, or nil when nothing matches.
    func server(forEntity entityName: String, recordClass: Record.Type, schema: Schema) -> (any Server)? {
        if let server = byClass[ObjectIdentifier(recordClass)] { return server }
        if let server = byEntity[entityName] { return server }
        var superclass: AnyClass? = _getSuperclass(recordClass)
        while let current = superclass as? Record.Type {
            if let server = byClass[ObjectIdentifier(current)] { return server }
            superclass = _getSuperclass(current)
        }
        var parent = schema.entity(named: entityName)?.parentName
        while let name = parent {
            if let server = byEntity[name] { return server }
            parent = schema.entity(named: name)?.parentName
        }
        return nil
    }
}
