import Foundation

/// Verifies and decodes App Store signed data (notifications, transactions, renewal
/// information) as Apple's App Store Server Library `SignedDataVerifier` does, with several
/// apps and environments accepted at once.
///
/// Each JWS must be three base64url segments; its header must say `alg` `ES256` and carry an
/// `x5c` of exactly three certificates; the leaf and intermediate must chain to a configured
/// root (never to the root the `x5c` carries), with Apple's OIDs, every certificate valid at
/// the payload's `signedDate`; the ES256 signature must verify under the leaf key; the
/// payload must decode, with every number in its range (`AppStoreValueRanges`: no date the
/// service could not handle); and the app and environment it names must be accepted.
///
/// Safe to share between threads; verified chains are cached for 15 minutes.
public struct SignedDataVerifier: Sendable {
    /// An app whose signed data is accepted.
    public struct App: Hashable, Sendable {
        /// The app's bundle identifier.
        public var bundleId: String
        /// The app's App Store identifier; Production data of an app without one is refused.
        public var appAppleId: Int64?

        public init(bundleId: String, appAppleId: Int64?) {
            self.bundleId = bundleId
            self.appAppleId = appAppleId
        }
    }

    let apps: [String: App]
    let acceptedEnvironments: Set<String>
    let chainVerifier: AppStoreChainVerifier
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - rootCertificates: the trusted roots, e.g. Apple Root CA - G3; the root an `x5c`
    ///     carries is never trusted.
    ///   - apps: the apps whose data is accepted.
    ///   - acceptedEnvironments: `"Production"`, `"Sandbox"` or both.
    ///   - strictCertificateChecks: OpenSSL's `X509_V_FLAG_X509_STRICT` RFC 5280 checks, on by
    ///     default as in Apple's Python library; Apple's own test certificates need them off.
    ///   - now: the clock, used for the cache lifetime and, as Apple's library does, as the
    ///     verification time of a payload without `signedDate`.
    public init(rootCertificates: [X509Certificate], apps: [App], acceptedEnvironments: Set<String>,
                strictCertificateChecks: Bool = true,
                now: @escaping @Sendable () -> Date = { Date() }) throws(SignedDataConfigurationError) {
        var byBundleId: [String: App] = [:]
        for app in apps {
            guard byBundleId.updateValue(app, forKey: app.bundleId) == nil else {
                throw SignedDataConfigurationError.duplicateBundleId(app.bundleId)
            }
        }
        guard !acceptedEnvironments.isEmpty else { throw SignedDataConfigurationError.noAcceptedEnvironments }
        let known: Set<String> = [AppStoreEnvironment.production.rawValue, AppStoreEnvironment.sandbox.rawValue]
        if let unknown = acceptedEnvironments.sorted().first(where: { !known.contains($0) }) {
            throw SignedDataConfigurationError.unknownEnvironment(unknown)
        }
        self.apps = byBundleId
        self.acceptedEnvironments = acceptedEnvironments
        self.chainVerifier = try AppStoreChainVerifier(roots: rootCertificates, strict: strictCertificateChecks, now: now)
        self.now = now
    }

    /// Like ``init(rootCertificates:apps:acceptedEnvironments:strictCertificateChecks:now:)``,
    /// with the roots given as DER bytes.
    public init(rootCertificatesDER: [[UInt8]], apps: [App], acceptedEnvironments: Set<String>,
                strictCertificateChecks: Bool = true,
                now: @escaping @Sendable () -> Date = { Date() }) throws(SignedDataConfigurationError) {
        var roots: [X509Certificate] = []
        for (index, der) in rootCertificatesDER.enumerated() {
            do {
                roots.append(try X509Certificate(der: der))
            } catch {
                throw SignedDataConfigurationError.invalidRootCertificate(index: index, error)
            }
        }
        try self.init(rootCertificates: roots, apps: apps, acceptedEnvironments: acceptedEnvironments,
                      strictCertificateChecks: strictCertificateChecks, now: now)
    }

    /// Verifies a notification's `signedPayload`, and the `signedTransactionInfo` and
    /// `signedRenewalInfo` inside it, each at its own `signedDate`.
    ///
    /// The app and environment come from `data`, else `summary`, else `externalPurchaseToken`
    /// (sandbox when its identifier starts with `SANDBOX`), as in Apple's library. Nested data
    /// must come from the same app and environment as the notification.
    public func verifyNotification(_ signedPayload: String) throws(SignedDataError) -> VerifiedNotification {
        let payload = try verifiedPayload(signedPayload, as: ResponseBodyV2DecodedPayload.self)
        try payload.checkRanges()
        let subject = NotificationSubject(payload)
        try checkApp(bundleId: subject.bundleId, appAppleId: subject.appAppleId, environment: subject.environment,
                     checksAppAppleId: true)
        var transaction: JWSTransactionDecodedPayload?
        var renewalInfo: JWSRenewalInfoDecodedPayload?
        if let signed = payload.data?.signedTransactionInfo {
            transaction = try nested("signedTransactionInfo") { () throws(SignedDataError) in
                let decoded = try verifyTransaction(signed)
                try checkSameSource(bundleId: decoded.bundleId, environment: decoded.rawEnvironment, as: subject)
                return decoded
            }
        }
        if let signed = payload.data?.signedRenewalInfo {
            renewalInfo = try nested("signedRenewalInfo") { () throws(SignedDataError) in
                let decoded = try verifyRenewalInfo(signed)
                try checkSameSource(bundleId: nil, environment: decoded.rawEnvironment, as: subject)
                return decoded
            }
        }
        var appTransaction: JWSAppTransactionDecodedPayload?
        if let signed = payload.appData?.signedAppTransactionInfo {
            appTransaction = try nested("signedAppTransactionInfo") { () throws(SignedDataError) in
                let decoded = try verifyAppTransaction(signed)
                try checkSameSource(bundleId: decoded.bundleId, environment: decoded.rawReceiptType, as: subject)
                return decoded
            }
        }
        return VerifiedNotification(payload: payload, transaction: transaction, renewalInfo: renewalInfo,
                                    appTransaction: appTransaction)
    }

    /// Verifies a signed transaction: its app must be configured and its environment accepted.
    public func verifyTransaction(_ jws: String) throws(SignedDataError) -> JWSTransactionDecodedPayload {
        let transaction = try verifiedPayload(jws, as: JWSTransactionDecodedPayload.self)
        try transaction.checkRanges()
        try checkApp(bundleId: transaction.bundleId, appAppleId: nil, environment: transaction.rawEnvironment,
                     checksAppAppleId: false)
        return transaction
    }

    /// Verifies signed renewal information: its environment must be accepted (it names no app,
    /// so, as in Apple's library, no app is checked).
    public func verifyRenewalInfo(_ jws: String) throws(SignedDataError) -> JWSRenewalInfoDecodedPayload {
        let renewalInfo = try verifiedPayload(jws, as: JWSRenewalInfoDecodedPayload.self)
        try renewalInfo.checkRanges()
        try checkEnvironment(renewalInfo.rawEnvironment)
        return renewalInfo
    }

    /// Checks a JWS's form, chain (valid at the payload's `dateField`) and signature, then
    /// decodes its payload as `type`.
    func verifiedPayload<Payload: Decodable>(_ text: String, as type: Payload.Type,
                                             dateField: SignedPayloadDecoder.SignedDateField = .signedDate) throws(SignedDataError) -> Payload {
        let jws = try CompactJWS(parsing: text)
        guard jws.header.alg == "ES256" else { throw SignedDataError.unsupportedAlgorithm }
        guard let x5c = jws.header.x5c else { throw SignedDataError.missingCertificateChain }
        guard x5c.count == 3 else { throw SignedDataError.wrongCertificateCount(x5c.count) }
        let der = try [CertificatePosition.leaf, .intermediate, .root].enumerated().map { index, position throws(SignedDataError) in
            try Self.derBytes(x5c[index], position)
        }
        let signedDate = try SignedPayloadDecoder.signedDate(of: jws.payload, field: dateField)
        let seconds = signedDate.map { UnixTime.seconds(milliseconds: $0) } ?? UnixTime.seconds(now())
        // A chain verified in the last 15 minutes is known by its bytes, without parsing the
        // certificates again (OpenSSL 3's certificate decoding dominated ingestion).
        let chain: VerifiedChain
        if let cached = try chainVerifier.cachedChain(leafDER: der[0], intermediateDER: der[1], rootDER: der[2], atUnixSeconds: seconds) {
            chain = cached
        } else {
            let leaf = try Self.certificate(der[0], .leaf)
            let intermediate = try Self.certificate(der[1], .intermediate)
            _ = try Self.certificate(der[2], .root)  // must be well-formed, but is never trusted
            chain = try chainVerifier.verify(leaf: leaf, intermediate: intermediate, rootDER: der[2], atUnixSeconds: seconds)
        }
        guard jws.signature.count == 64 else { throw SignedDataError.malformedSignature }
        guard chain.leafPublicKey.isValidSignature(rawSignature: jws.signature, of: jws.signingInput) else {
            throw SignedDataError.invalidSignature
        }
        return try SignedPayloadDecoder.decode(type, from: jws.payload)
    }

    /// An `x5c` entry's bytes: standard base64 (not base64url) of a DER certificate.
    private static func derBytes(_ base64: String, _ position: CertificatePosition) throws(SignedDataError) -> [UInt8] {
        guard let der = Data(base64Encoded: base64), !der.isEmpty else { throw SignedDataError.malformedCertificate(position) }
        return Array(der)
    }

    private static func certificate(_ der: [UInt8], _ position: CertificatePosition) throws(SignedDataError) -> X509Certificate {
        guard let certificate = try? X509Certificate(der: der) else { throw SignedDataError.malformedCertificate(position) }
        return certificate
    }

    private func nested<Value>(_ field: String, _ body: () throws(SignedDataError) -> Value) throws(SignedDataError) -> Value {
        do {
            return try body()
        } catch {
            throw SignedDataError.nested(field: field, error)
        }
    }
}
