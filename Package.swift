// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "offer-signer",
    // macOS 15 for the service; iOS 15 for apps using OfferSignerClient.
    platforms: [.macOS(.v15), .iOS(.v15)],
    products: [
        .executable(name: "offer-signer", targets: ["offer-signer"]),
        // The client for apps: Foundation only (and StoreKit where it exists), none of the service's targets.
        .library(name: "OfferSignerClient", targets: ["OfferSignerClient"]),
    ],
    targets: [
        // C libraries from the operating system, one system-library target each.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CPostgreSQL", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // The PKCS#11 API's header from p11-kit (libp11-kit-dev); nothing linked: modules are loaded with dlopen.
        .systemLibrary(name: "CPKCS11", providers: [.apt(["libp11-kit-dev"])]),

        // The domain: signing, Apple's signed data, eligibility. No I/O but crypto.
        .target(name: "OfferSignerCore", dependencies: ["COpenSSL"]),
        // Persistence behind protocols: SQLite (embedded, the default) or PostgreSQL (several instances).
        .target(name: "OfferSignerStore", dependencies: ["OfferSignerCore", "CSQLite", "CPostgreSQL"]),
        // libmicrohttpd adapter, Request/Response values, router, middleware; Core only for its JSON and identifier rules.
        .target(name: "OfferSignerHTTP", dependencies: ["OfferSignerCore", "CMicroHTTPD"]),
        // libcurl's easy handles, kept between exchanges (keep-alive), optionally pinned to one checked address.
        .target(name: "CurlTransport", dependencies: ["CCurl"]),
        // Client of Apple's App Store Server API (JWT auth, paging, retries, rate limit) over libcurl.
        .target(name: "AppStoreServerAPI", dependencies: ["OfferSignerCore", "CurlTransport"]),
        // Webhook deliveries over libcurl: POSTs to an address checked before connecting, no redirects, no proxies.
        .target(name: "WebhookTransport", dependencies: ["CurlTransport"]),
        // The web console's HTML, CSS and JavaScript, embedded in the binary at build time.
        .target(name: "OfferSignerConsole", exclude: ["Assets"], plugins: ["EmbedConsoleAssets"]),
        .executableTarget(name: "ConsoleAssetEmbedder"),
        .plugin(name: "EmbedConsoleAssets", capability: .buildTool(), dependencies: ["ConsoleAssetEmbedder"]),
        // Signing keys that never leave a hardware module: PKCS#11 modules loaded with dlopen, sessions, ECDSA.
        .target(name: "OfferSignerPKCS11", dependencies: ["OfferSignerCore", "CPKCS11"]),
        // The use cases: issuing, retention, App Store sync, audit, configuration, offline tools. No HTTP.
        .target(name: "OfferSignerApplication", dependencies: ["OfferSignerCore", "OfferSignerStore", "AppStoreServerAPI", "OfferSignerPKCS11",
                                                        "WebhookTransport"]),
        // The HTTP face: handlers, routes, middleware, the console, the composition root and the running service.
        .target(name: "OfferSignerService", dependencies: ["OfferSignerCore", "OfferSignerStore", "OfferSignerApplication",
                                                    "OfferSignerHTTP", "OfferSignerConsole"]),
        // The executable: CLI and subcommands.
        .executableTarget(name: "offer-signer", dependencies: ["OfferSignerService", "OfferSignerApplication"]),

        .testTarget(name: "OfferSignerCoreTests", dependencies: ["OfferSignerCore", "COpenSSL"], exclude: ["Fixtures"]),
        // The throwaway PostgreSQL cluster the tests start (initdb, pg_ctl), for the tests only.
        .target(name: "OfferSignerTestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "OfferSignerStoreTests", dependencies: ["OfferSignerStore", "OfferSignerTestSupport"]),
        .testTarget(name: "OfferSignerHTTPTests", dependencies: ["OfferSignerHTTP"]),
        // Test support, for test targets only: a libmicrohttpd mock of Apple's App Store Server API
        // and App Store data signed with a test chain shaped like Apple's.
        .target(name: "AppStoreServerAPIMock", dependencies: ["OfferSignerCore", "CMicroHTTPD"], path: "Tests/AppStoreServerAPIMock",
                exclude: ["Fixtures"]),
        .testTarget(name: "AppStoreServerAPITests", dependencies: ["AppStoreServerAPI", "AppStoreServerAPIMock", "OfferSignerCore"]),
        // The client for apps. Depends on nothing of this package, so adding it to an app pulls in nothing else.
        .target(name: "OfferSignerClient"),
        // The client against a real `serve` (the debug build), with App Store data signed by the test chain.
        .testTarget(name: "OfferSignerClientTests", dependencies: ["OfferSignerClient", "AppStoreServerAPIMock", "OfferSignerCore", "OfferSignerTestSupport"]),
        .testTarget(name: "OfferSignerServiceTests", dependencies: ["OfferSignerService", "OfferSignerApplication", "AppStoreServerAPIMock", "OfferSignerTestSupport",
                                                             "OfferSignerPKCS11", "CPKCS11", "WebhookTransport"], exclude: ["Fixtures"]),
    ]
)

#if os(Linux)
// Linux has no StoreKit. For the tests only: a module named StoreKit declaring exactly the
// StoreKit API the client's glue uses, and the client's sources compiled again against it
// (Tests/OfferSignerClientOnStoreKitDouble/Client is a link to Sources/OfferSignerClient), so
// the glue's `#if canImport(StoreKit)` code is built and tested here unchanged.
package.targets += [
    .target(name: "StoreKit", path: "Tests/StoreKitTestDouble"),
    .target(name: "OfferSignerClientOnStoreKitDouble", dependencies: ["StoreKit"], path: "Tests/OfferSignerClientOnStoreKitDouble"),
    .testTarget(name: "OfferSignerClientStoreKitTests", dependencies: ["OfferSignerClientOnStoreKitDouble", "StoreKit"]),
]
#endif
