/// A value moved from one isolation domain to another through an API that asks for
/// `Sendable`: a task's result, a transaction's result, a callback queue's block.
///
/// Records are not `Sendable` (Docs/Records.md, "Records and concurrency"): WebRecord hands
/// them across isolation as `sending` values, and uses this box only where such a value has to
/// pass through a `Sendable` generic parameter or a `@Sendable` closure on its way.
///
/// `@unchecked Sendable` is safe as it is used: the value is moved, never shared. The side that
/// hands it over does not touch it while the other side may: it waits for the other side to
/// be done (a write transaction it awaits), or it never uses the value again (a result handed
/// to a callback). The receiving side reads ``value`` and goes on with it alone, and a value
/// read out of the box is disconnected, so it can be returned or passed on as `sending`.
struct HandOver<Value>: @unchecked Sendable {
    /// The value handed over.
    let value: Value

    /// Hands `value` over.
    init(_ value: Value) {
        self.value = value
    }
}
