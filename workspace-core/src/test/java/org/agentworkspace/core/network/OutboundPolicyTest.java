package org.agentworkspace.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import org.agentworkspace.api.WorkspaceException;
import org.junit.jupiter.api.Test;

/** The outbound-address policy: stored URLs by their literal host, connections by every resolved address. */
class OutboundPolicyTest {
    static OutboundPolicy.Resolver hook(Map<String, String> names, List<String> asked) {
        return host -> {
            asked.add(host);
            String a = names.get(host);
            if (a == null) {
                throw new UnknownHostException(host);
            }
            return new InetAddress[] {InetAddress.getByName("93.184.216.34"), InetAddress.getByName(a)};
        };
    }

    @Test
    void internalLiteralsAndNamesAreRefusedWhenStored() {
        OutboundPolicy p = OutboundPolicy.create(Set.of("127.0.0.1:8080", "[::1]:9000"), OutboundPolicy.SYSTEM);
        for (String url : List.of("http://127.0.0.1:8081", "http://169.254.169.254/latest/meta-data",
                "https://10.0.0.1", "http://192.168.1.2", "http://172.16.0.1", "http://100.64.0.1",
                "http://[::1]:8080", "http://[fd00::1]", "http://[::ffff:127.0.0.1]", "http://[fe80::1]",
                "http://0.0.0.0", "http://localhost:8080", "http://a.localhost", "http://printer.local",
                "http://metadata.google.internal", "http://example.com.")) {
            WorkspaceException e = assertThrows(WorkspaceException.class, () -> p.checkUrl(URI.create(url), "baseUrl"),
                    url);
            assertEquals(NetworkErrorCodes.OUTBOUND_ADDRESS_REFUSED, e.code(), url);
        }
        // allowed endpoints (exact host and port) and public hosts pass
        p.checkUrl(URI.create("http://127.0.0.1:8080/v1"), "baseUrl");
        p.checkUrl(URI.create("http://[::1]:9000"), "baseUrl");
        p.checkUrl(URI.create("https://api.example.com/v1"), "baseUrl");
        p.checkUrl(URI.create("https://93.184.216.34"), "baseUrl");
    }

    @Test
    void everyResolvedAddressIsCheckedAtConnectionTime() throws Exception {
        List<String> asked = new CopyOnWriteArrayList<>();
        OutboundPolicy p = OutboundPolicy.create(Set.of("allowed.rebind.test:443"), hook(Map.of(
                "metadata.rebind.test", "169.254.169.254", "lan.rebind.test", "10.1.2.3",
                "loop.rebind.test", "127.0.0.1", "public.rebind.test", "1.1.1.1",
                "allowed.rebind.test", "127.0.0.1"), asked));
        for (String host : List.of("metadata", "lan", "loop")) {
            URI uri = URI.create("https://" + host + ".rebind.test/v1");
            assertThrows(OutboundPolicy.RefusedAddressException.class, () -> p.checkConnect(uri), host);
        }
        p.checkConnect(URI.create("https://public.rebind.test/v1"));
        p.checkConnect(URI.create("https://allowed.rebind.test/v1"));
        assertThrows(IOException.class, () -> p.checkConnect(URI.create("https://unknown.rebind.test")));
        assertEquals(List.of("metadata.rebind.test", "lan.rebind.test", "loop.rebind.test", "public.rebind.test",
                "unknown.rebind.test"), asked, "names go through the resolver; an allowed endpoint needs no lookup");
    }

    @Test
    void allowListEntriesAreHostAndPort() {
        assertEquals(Set.of("127.0.0.1:11434", "[::1]:8080", "models.lan:443"), OutboundPolicy.create(
                Set.of(" 127.0.0.1:11434", "[::1]:8080", "Models.LAN:443"), OutboundPolicy.SYSTEM).allowed());
        for (String bad : List.of("127.0.0.1", "host:", ":80", "host:0", "host:70000", "::1:80", "host:x")) {
            assertThrows(IllegalArgumentException.class, () -> OutboundPolicy.normaliseEntry(bad), bad);
        }
    }
}
