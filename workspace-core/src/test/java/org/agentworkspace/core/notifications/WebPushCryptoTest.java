package org.agentworkspace.core.notifications;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECPrivateKeySpec;
import java.time.Instant;
import java.util.Base64;

import org.junit.jupiter.api.Test;

/** RFC 8291's own example (Appendix A) reproduced byte for byte, and the VAPID token's form. */
class WebPushCryptoTest {
    private static byte[] b64(String s) {
        return Base64.getUrlDecoder().decode(s);
    }

    @Test
    void theRfc8291ExampleIsReproducedExactly() throws Exception {
        byte[] plaintext = "When I grow up, I want to be a watermelon".getBytes(StandardCharsets.UTF_8);
        byte[] asPublic = b64("BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8");
        byte[] asPrivate = b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw");
        byte[] uaPublic = b64("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4");
        byte[] salt = b64("DGv6ra1nlYgDCS1FRnbzlw");
        byte[] auth = b64("BTBZMqHH6r4Tts7J_aSIgg");
        ECPublicKey pub = P256.decode(asPublic).orElseThrow();
        PrivateKey priv = KeyFactory.getInstance("EC").generatePrivate(new ECPrivateKeySpec(new BigInteger(1,
                asPrivate), P256.params()));
        byte[] body = WebPushCrypto.encrypt(plaintext, uaPublic, auth, new KeyPair(pub, priv), salt);
        assertEquals("DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6Tlz"
                + "AC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN",
                P256.b64(body));
    }

    @Test
    void pointsOffTheCurveAndMalformedKeysAreRefused() {
        KeyPair kp = P256.generate();
        byte[] point = P256.encode((ECPublicKey) kp.getPublic());
        assertTrue(P256.decode(point).isPresent());
        assertArrayEquals(point, P256.encode(P256.decode(point).orElseThrow()));
        byte[] moved = point.clone();
        moved[64] ^= 1;
        assertFalse(P256.decode(moved).isPresent(), "a point off the curve");
        byte[] compressed = point.clone();
        compressed[0] = 2;
        assertFalse(P256.decode(compressed).isPresent());
        assertFalse(P256.decode(new byte[64]).isPresent());
        assertThrows(IllegalArgumentException.class, () -> WebPushCrypto.encrypt(new byte[10], moved, new byte[16]));
        assertThrows(IllegalArgumentException.class, () -> WebPushCrypto.encrypt(new byte[WebPushCrypto.MAX_PLAINTEXT
                + 1], point, new byte[16]));
    }

    @Test
    void theVapidTokenIsAnEs256JwtWithAJoseSignature() throws Exception {
        KeyPair kp = P256.generate();
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        String jwt = WebPushCrypto.vapidJwt(URI.create("https://fcm.googleapis.com:443/fcm/send/abc"),
                "mailto:ops@example.com", now, kp.getPrivate());
        String[] parts = jwt.split("\\.");
        assertEquals(3, parts.length);
        assertEquals("{\"typ\":\"JWT\",\"alg\":\"ES256\"}", new String(b64(parts[0]), StandardCharsets.UTF_8));
        assertEquals("{\"aud\":\"https://fcm.googleapis.com\",\"exp\":" + (now.getEpochSecond() + 12 * 3600)
                + ",\"sub\":\"mailto:ops@example.com\"}", new String(b64(parts[1]), StandardCharsets.UTF_8));
        byte[] sig = b64(parts[2]);
        assertEquals(64, sig.length, "R || S, not DER");
        Signature v = Signature.getInstance("SHA256withECDSAinP1363Format");
        v.initVerify(kp.getPublic());
        v.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
        assertTrue(v.verify(sig));
        assertEquals("http://127.0.0.1:8080", WebPushCrypto.origin(URI.create("http://127.0.0.1:8080/push/x")));
    }
}
