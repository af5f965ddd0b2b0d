import OfferSignerApplication
import OfferSignerCore

extension KeyedDecodingContainer {
    /// The body's App Store environment: Production when `key` is absent; refused, naming the
    /// value, when it is neither `Production` nor `Sandbox`.
    func decodeEnvironment(forKey key: Key) throws -> AppStoreEnvironment {
        let name = try decodeIfPresent(String.self, forKey: key) ?? AppStoreEnvironment.production.rawValue
        guard let environment = AppStoreEnvironment(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self,
                debugDescription: "unknown environment '\(name)'; use \"Production\" or \"Sandbox\"")
        }
        return environment
    }

    /// The body's promotional-offer format: legacy when `key` is absent; refused, naming the
    /// value, when it is neither `legacy` nor `jws`.
    func decodeFormat(forKey key: Key) throws -> PromotionalOfferFormat {
        let name = try decodeIfPresent(String.self, forKey: key) ?? PromotionalOfferFormat.legacy.rawValue
        guard let format = PromotionalOfferFormat(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "unknown format '\(name)'; use \"legacy\" or \"jws\"")
        }
        return format
    }

    /// The customer's proof: the body's Apple-signed transaction and app transaction and the
    /// device's `AppStore.deviceVerificationID`, each optional.
    func decodeProof(signedTransaction: Key, signedAppTransaction: Key, deviceVerificationId: Key) throws -> CustomerProof {
        CustomerProof(signedTransaction: try decodeIfPresent(String.self, forKey: signedTransaction),
                      signedAppTransaction: try decodeIfPresent(String.self, forKey: signedAppTransaction),
                      deviceVerificationId: try decodeIfPresent(String.self, forKey: deviceVerificationId))
    }
}
