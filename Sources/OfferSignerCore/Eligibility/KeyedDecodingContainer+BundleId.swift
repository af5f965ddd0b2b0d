extension KeyedDecodingContainer {
    /// A rule's app: the value at `key`, else the default app under
    /// ``OfferRule/defaultBundleIdKey`` of the decoder's `userInfo`; neither is a missing key.
    func decodeBundleId(forKey key: Key, defaultFrom decoder: any Decoder) throws -> String {
        if let named = try decodeIfPresent(String.self, forKey: key) { return named }
        if let fallback = decoder.userInfo[OfferRule.defaultBundleIdKey] as? String { return fallback }
        return try decode(String.self, forKey: key)
    }
}
