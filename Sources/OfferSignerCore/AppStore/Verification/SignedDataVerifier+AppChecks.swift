extension SignedDataVerifier {
    /// Apple's checks, in Apple's order: the app is configured (and, for Production data
    /// when `checksAppAppleId`, its `appAppleId` matches), then the environment is accepted.
    func checkApp(bundleId: String?, appAppleId: Int64?, environment: String?, checksAppAppleId: Bool) throws(SignedDataError) {
        guard let bundleId else { throw SignedDataError.missingBundleId }
        guard let app = apps[bundleId] else { throw SignedDataError.unknownBundleId(bundleId) }
        if checksAppAppleId && environment == AppStoreEnvironment.production.rawValue {
            guard let configured = app.appAppleId else { throw SignedDataError.appAppleIdNotConfigured(bundleId: bundleId) }
            guard appAppleId == configured else {
                throw SignedDataError.appAppleIdMismatch(bundleId: bundleId, found: appAppleId)
            }
        }
        try checkEnvironment(environment)
    }

    func checkEnvironment(_ environment: String?) throws(SignedDataError) {
        guard let environment, acceptedEnvironments.contains(environment) else {
            throw SignedDataError.environmentNotAccepted(environment)
        }
    }

    /// Nested data must come from the notification's app and environment: what Apple's
    /// single-app, single-environment verifier implies when it checks both.
    func checkSameSource(bundleId: String?, environment: String?, as subject: NotificationSubject) throws(SignedDataError) {
        if let expected = subject.bundleId, let bundleId, bundleId != expected {
            throw SignedDataError.bundleIdMismatch(expected: expected, found: bundleId)
        }
        if let expected = subject.environment, environment != expected {
            throw SignedDataError.environmentMismatch(expected: expected, found: environment)
        }
    }
}
