package org.agentworkspace.core.network;

import java.net.http.HttpClient;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * An {@link HttpClient} built on its first use. Building one starts its selector thread and, for the first client of
 * the process, initialises the default TLS context, which parses the JDK's trust store (some 150 certificates):
 * tens of milliseconds and a few megabytes that the server's start-up need not spend on features most runs never
 * touch (model catalogs, OAuth callbacks, repository checks, UPnP).
 */
public final class LazyHttpClient {
    private final Supplier<HttpClient> factory;
    private volatile HttpClient client;

    /** @param factory builds the client, once, on the first {@link #get()} */
    public LazyHttpClient(Supplier<HttpClient> factory) {
        this.factory = Objects.requireNonNull(factory, "factory");
    }

    /** The client, built by the first call. */
    public HttpClient get() {
        HttpClient c = client;
        if (c == null) {
            synchronized (this) {
                c = client;
                if (c == null) {
                    c = Objects.requireNonNull(factory.get(), "the factory built no client");
                    client = c;
                }
            }
        }
        return c;
    }
}
