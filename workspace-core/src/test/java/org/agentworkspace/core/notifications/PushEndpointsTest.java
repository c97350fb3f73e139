package org.agentworkspace.core.notifications;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.util.List;

import org.agentworkspace.api.WorkspaceException;
import org.junit.jupiter.api.Test;

/** Which push endpoints the service sends to: public https hosts on port 443 only. */
class PushEndpointsTest {
    @Test
    void publicPushServicesAreAccepted() {
        for (String ok : List.of("https://fcm.googleapis.com/fcm/send/abc", "https://updates.push.services.mozilla.com/wpush/v2/x",
                "https://web.push.apple.com:443/Q", "https://[2a00:1450:4001:80b::200a]/x", "https://8.8.8.8/x")) {
            assertEquals(ok, PushEndpoints.parse(ok, false).toString());
        }
    }

    @Test
    void internalAddressesInAnyFormAndOtherPortsAreRefused() {
        for (String bad : List.of("http://fcm.googleapis.com/x", "https://fcm.googleapis.com:99999/x",
                "https://fcm.googleapis.com:8443/x", "https://localhost/x", "https://127.0.0.1/x", "https://10.0.0.1/x",
                "https://[::1]/x", "https://[fd00::1]/x", "https://[64:ff9b::7f00:1]/x", "https://[2002:7f00:1::]/x",
                "https://[::ffff:0:7f00:1]/x", "https://[::127.0.0.1]/x", "https://[::ffff:10.0.0.1]/x",
                "https://[100::1]/x", "https://[2001:db8::1]/x", "https://192.0.2.1/x", "https://198.51.100.1/x",
                "https://203.0.113.1/x", "https://198.18.0.1/x", "https://240.0.0.1/x", "https://u:p@fcm.googleapis.com/x",
                "https://host.internal/x")) {
            WorkspaceException.Validation e = assertThrows(WorkspaceException.Validation.class,
                    () -> PushEndpoints.parse(bad, false), bad);
            assertEquals(NotificationErrorCodes.INVALID_PUSH_ENDPOINT, e.code(), bad);
        }
    }

    @Test
    void addressesCarryingAPublicIpv4AreJudgedByIt() throws Exception {
        assertEquals(true, PushEndpoints.isPublic(InetAddress.getByName("64:ff9b::808:808")));
        assertEquals(true, PushEndpoints.isPublic(InetAddress.getByName("2002:808:808::1")));
        assertEquals(false, PushEndpoints.isPublic(InetAddress.getByName("2002:a00:1::1")));
    }
}
