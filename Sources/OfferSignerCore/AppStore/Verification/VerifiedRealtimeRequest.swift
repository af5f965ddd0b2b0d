/// A Retention Messaging real-time request whose signature verified, for a configured app.
public struct VerifiedRealtimeRequest: Hashable, Sendable {
    /// The decoded request.
    public let payload: DecodedRealtimeRequestBody
    /// The configured app the request is for (found by its `appAppleId`).
    public let bundleId: String
    /// The request's environment, one this service accepts.
    public let environment: AppStoreEnvironment
}
