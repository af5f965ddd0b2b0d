/// The context of an application that keeps nothing of its own about requests.
public struct BasicRequestContext: RequestContext {
    public let core: CoreRequestContext

    public init(core: CoreRequestContext, policy: Void?) {
        self.core = core
    }
}
