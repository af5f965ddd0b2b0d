extension SignedDataVerifier {
    /// Verifies a signed app transaction (`AppTransaction.shared.jwsRepresentation`) as Apple's
    /// library does: the chain must be valid at its `receiptCreationDate`, its app configured
    /// (in Production with the configured `appAppleId`) and its `receiptType` an accepted
    /// environment. How old it may be is the caller's to judge.
    public func verifyAppTransaction(_ jws: String) throws(SignedDataError) -> JWSAppTransactionDecodedPayload {
        let appTransaction = try verifiedPayload(jws, as: JWSAppTransactionDecodedPayload.self, dateField: .receiptCreationDate)
        try checkApp(bundleId: appTransaction.bundleId, appAppleId: appTransaction.appAppleId,
                     environment: appTransaction.rawReceiptType, checksAppAppleId: true)
        return appTransaction
    }
}
