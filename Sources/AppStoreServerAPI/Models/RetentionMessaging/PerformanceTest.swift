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

    public init(config: PerformanceTestConfig?, requestId: String) {
        self.config = config
        self.requestId = requestId
    }
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

    public init(maxConcurrentRequests: Int64?, responseTimeThreshold: Int64?, successRateThreshold: Int64?, totalDuration: Int64?,
                totalRequests: Int64?) {
        self.maxConcurrentRequests = maxConcurrentRequests
        self.responseTimeThreshold = responseTimeThreshold
        self.successRateThreshold = successRateThreshold
        self.totalDuration = totalDuration
        self.totalRequests = totalRequests
    }
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

    public init(config: PerformanceTestConfig? = nil, target: String? = nil, result: String? = nil, successRate: Int64? = nil,
                numPending: Int64? = nil, responseTimes: PerformanceTestResponseTimes? = nil, failures: [String: Int64]? = nil) {
        self.config = config
        self.target = target
        self.result = result
        self.successRate = successRate
        self.numPending = numPending
        self.responseTimes = responseTimes
        self.failures = failures
    }
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

    public init(average: Int64?, p50: Int64?, p90: Int64?, p95: Int64?, p99: Int64?) {
        self.average = average
        self.p50 = p50
        self.p90 = p90
        self.p95 = p95
        self.p99 = p99
    }
}
