/// Initiate Performance Test's body: a Sandbox subscription's original transaction ID, which
/// the App Store's test requests to the real-time URL are about.
///
/// [PerformanceTestRequest](https://developer.apple.com/documentation/retentionmessaging/performancetestrequest)
public struct PerformanceTestRequest: Codable, Hashable, Sendable {
    public var originalTransactionId: String

    public init(originalTransactionId: String) {
        self.originalTransactionId = originalTransactionId
    }
}

/// Initiate Performance Test's answer.
///
/// [PerformanceTestResponse](https://developer.apple.com/documentation/retentionmessaging/performancetestresponse)
public struct PerformanceTestResponse: Codable, Hashable, Sendable {
    public var config: PerformanceTestConfig?
    /// The test's identifier, for Get Performance Test Results.
    public var requestId: String
}

/// The test's parameters.
///
/// [PerformanceTestConfig](https://developer.apple.com/documentation/retentionmessaging/performancetestconfig)
public struct PerformanceTestConfig: Codable, Hashable, Sendable {
    public var maxConcurrentRequests: Int64?
    /// Milliseconds.
    public var responseTimeThreshold: Int64?
    /// Percent.
    public var successRateThreshold: Int64?
    /// Milliseconds.
    public var totalDuration: Int64?
    public var totalRequests: Int64?
}

/// Get Performance Test Results' answer.
///
/// [PerformanceTestResultResponse](https://developer.apple.com/documentation/retentionmessaging/performancetestresultresponse)
public struct PerformanceTestResultResponse: Codable, Hashable, Sendable {
    public var config: PerformanceTestConfig?
    /// The URL tested.
    public var target: String?
    /// The overall result ([PerformanceTestStatus](https://developer.apple.com/documentation/retentionmessaging/performanceteststatus)), as Apple sends it.
    public var result: String?
    /// Percent of requests answered in time.
    public var successRate: Int64?
    public var numPending: Int64?
    public var responseTimes: PerformanceTestResponseTimes?
    /// Failures by Apple's `sendAttemptResult` (e.g. `TIMED_OUT`), with their counts.
    public var failures: [String: Int64]?
}

/// Response times measured during a test, in milliseconds.
///
/// [PerformanceTestResponseTimes](https://developer.apple.com/documentation/retentionmessaging/performancetestresponsetimes)
public struct PerformanceTestResponseTimes: Codable, Hashable, Sendable {
    public var average: Int64?
    public var p50: Int64?
    public var p90: Int64?
    public var p95: Int64?
    public var p99: Int64?
}
