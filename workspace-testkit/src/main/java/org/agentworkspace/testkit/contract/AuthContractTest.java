package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.agentworkspace.testkit.contract.ContractResponse.SetCookie;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Setup, login, current user and logout. Uses one failed login in total, and only for a username that does not
 * exist, so the per-account throttle of the real account is never touched.
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AuthContractTest {

    @Test
    @Order(1)
    void statusWithoutCredentialIsUnauthenticatedAndSetUp(ContractClient client) {
        JsonNode status = client.get("/api/auth/status").send().expectStatus(200).json();

        assertFalse(status.path("needsSetup").asBoolean(), "the suite's account exists, so setup is complete");
        assertFalse(status.path("isAuthenticated").asBoolean());
        assertTrue(status.path("user").isNull(), "no user without a credential");
    }

    @Test
    @Order(2)
    void statusWithSessionNamesTheUser(ContractClient client) {
        Session session = client.login();
        JsonNode status = client.get("/api/auth/status").as(session).send().expectStatus(200).json();

        assertTrue(status.path("isAuthenticated").asBoolean());
        assertEquals(client.target().username(), status.path("user").path("username").asText());
    }

    @Test
    @Order(3)
    void loginReturnsTheTokenAndSetsItAsHttpOnlyCookie(ContractClient client) {
        ContractResponse response = client.post("/api/auth/login")
                .json(ContractClient.body("username", client.target().username(),
                        "password", client.target().password()))
                .send().expectStatus(200);
        JsonNode body = response.json();
        SetCookie cookie = response.setCookie("token")
                .orElseThrow(() -> new AssertionError("login must set the token cookie"));

        assertEquals(body.path("token").asText(), cookie.value(), "the cookie carries the returned JWT");
        assertTrue(cookie.hasAttribute("HttpOnly"), "token cookie must be HttpOnly: " + cookie);
        assertTrue(cookie.hasAttribute("SameSite"), "token cookie must carry SameSite: " + cookie);
        assertEquals("/", cookie.attribute("Path").orElse(""), "token cookie path: " + cookie);
        assertEquals(client.target().username(), body.path("user").path("username").asText());
    }

    @Test
    @Order(4)
    void wrongPasswordOfUnknownUserGives401(ContractClient client) {
        client.post("/api/auth/login")
                .json(ContractClient.body("username", Names.unique("nobody"), "password", "wrong-" + Names.hex(8)))
                .send()
                .expectError(401, "INVALID_CREDENTIALS");
    }

    @Test
    @Order(5)
    void currentUserViaBearerAndViaCookie(ContractClient client) {
        Session session = client.login();

        JsonNode viaBearer = client.get("/api/auth/user").as(session.bearer()).send().expectStatus(200).json();
        JsonNode viaCookie = client.get("/api/auth/user").as(session.cookieCredential()).send()
                .expectStatus(200).json();

        assertEquals(client.target().username(), viaBearer.path("user").path("username").asText());
        assertEquals(viaBearer.path("user"), viaCookie.path("user"));
    }

    @Test
    @Order(6)
    void currentUserWithoutCredentialGives401(ContractClient client) {
        client.get("/api/auth/user").send().expectError(401, "AUTH_REQUIRED");
        client.get("/api/settings/api-keys").send().expectError(401, "AUTH_REQUIRED");
    }

    @Test
    @Order(7)
    void malformedOrTamperedTokenGives401(ContractClient client) {
        client.get("/api/auth/user").as(Credential.bearer("not-a-jwt")).send().expectError(401, "INVALID_TOKEN");

        String token = client.login().token();
        // change the signature's FIRST character: its last one may carry only padding bits (A and B can decode to
        // the same signature), which would leave the "tampered" token valid
        int sig = token.lastIndexOf('.') + 1;
        char first = token.charAt(sig);
        String tampered = token.substring(0, sig) + (first == 'A' ? 'B' : 'A') + token.substring(sig + 1);
        client.get("/api/auth/user").as(Credential.bearer(tampered)).send().expectError(401, "INVALID_TOKEN");
        client.get("/api/auth/user").as(Credential.cookie(tampered)).send().expectStatus(401);
    }

    @Test
    @Order(8)
    void registerAfterSetupGives403AndCreatesNobody(ContractClient client) {
        String username = Names.unique("intruder");
        client.post("/api/auth/register")
                .json(ContractClient.body("username", username, "password", "password-" + Names.hex(8)))
                .send()
                .expectError(403, "SETUP_COMPLETE");

        Session session = client.login();
        if (session.isAdmin()) {
            JsonNode users = client.get("/api/users").as(session).send().expectStatus(200).json();
            for (JsonNode user : users) {
                assertFalse(username.equals(user.path("username").asText()), "register after setup created a user");
            }
        }
    }

    @Test
    @Order(100)
    void logoutClearsTheCookie(ContractClient client) {
        Session session = client.login();
        ContractResponse response = client.post("/api/auth/logout").as(session.cookieCredential()).send()
                .expectStatus(200);

        assertTrue(response.json().path("success").asBoolean());
        SetCookie cleared = response.setCookie("token")
                .orElseThrow(() -> new AssertionError("logout must clear the token cookie with Set-Cookie"));
        assertTrue(cleared.clears(), "logout must expire the token cookie: " + cleared);
        assertTrue(cleared.hasAttribute("HttpOnly"), "cleared cookie keeps its attributes: " + cleared);
    }
}
