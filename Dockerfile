# offer-signer: multi-stage build on the official Swift image (Debian 12 "bookworm"), the
# Swift release the project is built and tested with (6.3).
# Build:  docker build -t offer-signer .
# Run:    docker run -p 8080:8080 -v /srv/offer-signer:/data offer-signer
#         (with /srv/offer-signer/keys.json and its .p8 files; see README.md)

FROM swift:6.3-bookworm AS build
# The Debian packages `make deps` installs for the build (the PostgreSQL server is for the tests only).
# Versions are not pinned (hadolint DL3008): Debian 12 replaces them with its security updates.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libssl-dev libsqlite3-dev libmicrohttpd-dev libcurl4-openssl-dev libpq-dev libp11-kit-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Plugins ./Plugins
COPY Sources ./Sources
COPY Tests ./Tests
# `make release`: a release build with the Swift runtime linked in statically. The web console's
# files (Sources/OfferSignerConsole/Assets) are embedded in the binary by the EmbedConsoleAssets
# build plugin, so the runtime image needs nothing else for /console/.
RUN swift build -c release --static-swift-stdlib \
 && install -D .build/release/offer-signer /out/offer-signer

FROM debian:bookworm-slim
# Runtime libraries only: OpenSSL libcrypto, SQLite, libpq (PostgreSQL), libmicrohttpd, libcurl (the App Store Server API
# client), the C++ runtime the static Swift runtime links against (checked with ldd on a
# --static-swift-stdlib build), CA certificates, curl for the health check. A PKCS#11 module is
# not linked but loaded when a keys file names one: for keys in an HSM, add its vendor's module
# to an image built FROM this one (or Debian's softhsm2 to try it). `make image-check`
# builds this stage without Docker and fails when the list lacks a library the binary loads.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libssl3 libsqlite3-0 libpq5 libmicrohttpd12 libcurl4 libstdc++6 ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --no-create-home --home-dir /data --shell /usr/sbin/nologin offer-signer \
 && mkdir -p /data && chown offer-signer /data
COPY --from=build /out/offer-signer /usr/local/bin/offer-signer
# Numeric, so that a runtime can tell it is not root (Kubernetes' runAsNonRoot) without the image's /etc/passwd.
USER 10001:10001
WORKDIR /data
ENV OFFER_SIGNER_LISTEN=0.0.0.0:8080 \
    OFFER_SIGNER_DATABASE=/data/offer-signer.sqlite \
    OFFER_SIGNER_KEYS=/data/keys.json
EXPOSE 8080
# A shell form on purpose (hadolint DL3025): Docker reads exit status 1 as unhealthy, and curl -f exits 22.
# hadolint ignore=DL3025
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
ENTRYPOINT ["/usr/local/bin/offer-signer"]
CMD ["serve"]
