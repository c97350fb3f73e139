package org.agentworkspace.server.http;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

import io.helidon.common.Errors;
import io.helidon.security.jwt.Jwt;
import io.helidon.security.jwt.SignedJwt;
import io.helidon.security.jwt.jwk.Jwk;
import io.helidon.security.jwt.jwk.JwkKeys;
import io.helidon.security.jwt.jwk.JwkOctet;
import jakarta.json.Json;

import org.agentworkspace.api.User;

/**
 * Session tokens: HS256 JWTs signed with the engine's 256-bit secret. Verification is pinned: the header must say
 * exactly {@code HS256}, name no key but ours, and carry no {@code jku}, {@code x5u} or {@code jwk}; the signature must verify
 * with our key; {@code exp} and {@code iat} are required ({@code exp} in the future, {@code iat} not ahead of the
 * clock); issuer and audience must be ours; the subject must be a numeric user id.
 */
public final class SessionTokens {
    static final String ISSUER = "agent-workspace";
    static final String AUDIENCE = "agent-workspace-session";
    private static final Duration CLOCK_SKEW = Duration.ofSeconds(60);
    /** Our only signing key's id; a token naming any other key is refused. */
    private static final String KEY_ID = "aw-session-1";

    private final JwkOctet key;
    private final JwkKeys noKeys = JwkKeys.builder().build();
    private final Clock clock;
    private final Duration lifetime;

    public SessionTokens(byte[] secret, Clock clock, Duration lifetime) {
        this.key = JwkOctet.create(Json.createObjectBuilder()
                .add("kty", "oct")
                .add("kid", KEY_ID)
                .add("alg", JwkOctet.ALG_HS256)
                .add("use", Jwk.USE_SIGNATURE)
                .add("k", Base64.getUrlEncoder().withoutPadding().encodeToString(secret))
                .build());
        this.clock = clock;
        this.lifetime = lifetime;
    }

    public Duration lifetime() {
        return lifetime;
    }

    /** Signs a session token for the user. */
    public String issue(User user) {
        Instant now = clock.instant();
        Jwt jwt = Jwt.builder()
                .algorithm(JwkOctet.ALG_HS256)
                .type("JWT")
                .issuer(ISSUER)
                .addAudience(AUDIENCE)
                .subject(Long.toString(user.id()))
                .issueTime(now)
                .expirationTime(now.plus(lifetime))
                .build();
        return SignedJwt.sign(jwt, key).tokenContent();
    }

    /** The user id a valid token names, or empty for anything malformed, forged, expired or foreign. */
    public Optional<Long> verify(String token) {
        if (token == null || token.length() > 4096 || token.chars().filter(c -> c == '.').count() != 2) {
            return Optional.empty();
        }
        try {
            SignedJwt signed = SignedJwt.parseToken(token);
            Jwt jwt = signed.getJwt();
            if (!JwkOctet.ALG_HS256.equals(jwt.algorithm().orElse(null))) {
                return Optional.empty();
            }
            if (!jwt.keyId().map(KEY_ID::equals).orElse(true)) {
                return Optional.empty();
            }
            for (String forbidden : List.of("jku", "x5u", "jwk", "x5c", "crit")) {
                if (jwt.headerClaim(forbidden).isPresent()) {
                    return Optional.empty();
                }
            }
            Errors errors = signed.verifySignature(noKeys, key);
            if (!errors.isValid()) {
                return Optional.empty();
            }
            Instant now = clock.instant();
            Optional<Instant> exp = jwt.expirationTime();
            Optional<Instant> iat = jwt.issueTime();
            if (exp.isEmpty() || !exp.get().isAfter(now) || iat.isEmpty() || iat.get().isAfter(now.plus(CLOCK_SKEW))) {
                return Optional.empty();
            }
            if (jwt.notBefore().map(nbf -> nbf.isAfter(now.plus(CLOCK_SKEW))).orElse(false)) {
                return Optional.empty();
            }
            if (!ISSUER.equals(jwt.issuer().orElse(null))
                    || !jwt.audience().map(a -> a.contains(AUDIENCE)).orElse(false)) {
                return Optional.empty();
            }
            return jwt.subject().filter(s -> s.matches("[1-9][0-9]{0,18}")).map(Long::parseLong);
        } catch (RuntimeException e) {
            // the token is attacker-controlled input: any parse failure (JwtException, Errors.ErrorMessagesException,
            // JSON or base64 errors) means "not a valid token", never a server error
            return Optional.empty();
        }
    }
}
