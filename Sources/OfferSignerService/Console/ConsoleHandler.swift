import Foundation
import OfferSignerApplication
import OfferSignerConsole
import OfferSignerHTTP

/// `GET /console/` and `GET /console/{asset}`: the web console's files, embedded in the
/// binary. The console has no data of its own: its pages call the public API with the
/// token the user signs in with. `/console` (without the slash) redirects to `/console/`,
/// so that the pages' relative URLs resolve under it.
struct ConsoleHandler {
    let assets: [String: ConsoleAsset]

    init(assets: [String: ConsoleAsset] = ConsoleAssets.all) {
        self.assets = assets
    }

    func index(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        guard request.path.hasSuffix("/") else {
            return HTTPResponse(status: 308, headers: ["Location": "/console/", "Content-Type": "text/plain; charset=utf-8"],
                                body: Array("The console is at /console/\n".utf8))
        }
        return serve("index.html", request)
    }

    func asset(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        serve(try context.parameters.require("asset"), request)
    }

    private func serve(_ name: String, _ request: HTTPRequest) -> HTTPResponse {
        guard let asset = assets[name] else {
            return HTTPResponse(status: 404, headers: ["Content-Type": "text/plain; charset=utf-8"],
                                body: Array("No such console file.\n".utf8))
        }
        // Revalidated on every load (cheap with the ETag), so a new release is never mixed with
        // cached files of the old one.
        var headers: HTTPHeaders = ["Content-Type": asset.contentType, "ETag": asset.etag, "Cache-Control": "no-cache"]
        if request.headers["If-None-Match"]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag }) == true {
            headers.set("Content-Length", "0")
            return HTTPResponse(status: 304, headers: headers)
        }
        return HTTPResponse(status: 200, headers: headers, body: asset.body)
    }
}

extension ConsoleHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/console", policy: .open, handler: index(_:_:))
        router.add("GET", "/console/{asset}", policy: .open, handler: asset(_:_:))
    }
}
