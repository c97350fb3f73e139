package org.agentworkspace.core.projects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.api.vcs.GitCredentials;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.core.files.VcsProviders;
import org.agentworkspace.core.secrets.GitTokens;
import org.agentworkspace.core.secrets.SecretBox;
import org.agentworkspace.core.secrets.UserSecrets;
import org.agentworkspace.core.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The project registry and per-user secrets on a real store; subclasses supply SQLite or PostgreSQL. */
abstract class AbstractProjectStoreTest {
    @TempDir
    Path tmp;

    protected String url;
    protected Store store;
    Path dataDir;
    ProjectRegistry projects;
    Authentication auth;
    SecretBox box;
    UserSecrets secrets;
    GitTokens tokens;

    protected abstract String createDatabase() throws Exception;

    protected void dropDatabase() throws Exception {
    }

    @BeforeEach
    void open() throws Exception {
        url = createDatabase();
        store = Store.open(url);
        dataDir = Files.createDirectories(tmp.resolve("host/data"));
        projects = ProjectRegistry.create(store, Clock.systemUTC(), dataDir, VcsProviders.of(List.of()));
        auth = Authentication.create(store, Clock.systemUTC(), EngineConfig.AuthSettings.defaults());
        box = SecretBox.open(dataDir);
        secrets = UserSecrets.create(store, box, Clock.systemUTC());
        tokens = GitTokens.create(secrets);
    }

    @AfterEach
    void close() throws Exception {
        store.close();
        dropDatabase();
    }

    private static String code(Runnable action) {
        try {
            action.run();
        } catch (WorkspaceException e) {
            return e.code();
        }
        return "OK";
    }

    @Test
    void quickStartCreatesRegistersAndIsIdempotent() throws Exception {
        Path folder = tmp.resolve("host/work/My App!");
        RegisteredProject p = projects.quickStart(folder.toString());

        assertTrue(Files.isDirectory(folder), "a missing folder is created");
        assertEquals(folder.toRealPath().toString(), p.path());
        assertEquals("My App!", p.displayName());
        assertTrue(p.name().matches("my-app-[0-9a-f]{8}"), p.name());
        assertEquals(ProjectRegistry.nameFor(folder.toRealPath()), p.name());
        assertEquals(p, projects.quickStart(folder.toString()));
        assertEquals(p, projects.quickStart(folder + "/./"));
        Path alias = Files.createSymbolicLink(tmp.resolve("host/alias"), folder);
        assertEquals(p.name(), projects.quickStart(alias.toString()).name(), "a link to the folder is the same project");
        assertEquals(List.of(p), projects.list());
        assertEquals(p, projects.get(p.name()));

        Path other = Files.createDirectories(tmp.resolve("host/other/my-app"));
        RegisteredProject q = projects.quickStart(other.toString());
        assertNotEquals(p.name(), q.name(), "same folder name, different path");
        assertEquals(List.of(p, q), projects.list());
    }

    @Test
    void renameChangesOnlyTheDisplayNameAndDeleteKeepsTheFolder() throws Exception {
        Path folder = Files.createDirectories(tmp.resolve("host/proj"));
        Files.writeString(folder.resolve("keep.txt"), "kept");
        RegisteredProject p = projects.quickStart(folder.toString());

        RegisteredProject renamed = projects.rename(p.name(), "  Shiny name  ");
        assertEquals("Shiny name", renamed.displayName());
        assertEquals(p.name(), renamed.name());
        assertEquals("Shiny name", projects.get(p.name()).displayName());
        assertEquals("proj", projects.rename(p.name(), " ").displayName(), "blank restores the folder's name");
        assertEquals(ErrorCodes.VALIDATION_FAILED, code(() -> projects.rename(p.name(), "x".repeat(201))));
        assertEquals(ErrorCodes.VALIDATION_FAILED, code(() -> projects.rename(p.name(), "a\nb")));
        assertEquals(ProjectErrorCodes.PROJECT_NOT_FOUND, code(() -> projects.rename("nope-00000000", "x")));

        projects.delete(p.name());
        assertTrue(projects.list().isEmpty());
        assertEquals("kept", Files.readString(folder.resolve("keep.txt")), "deregistering never deletes files");
        assertEquals(ProjectErrorCodes.PROJECT_NOT_FOUND, code(() -> projects.delete(p.name())));
        assertEquals(ProjectErrorCodes.PROJECT_NOT_FOUND, code(() -> projects.get(p.name())));
        assertEquals(p.name(), projects.quickStart(folder.toString()).name(), "the name is stable across registrations");
    }

    @Test
    void quickStartRefusesBadPathsTheDataDirectoryAndItsSurroundings() throws Exception {
        Path file = Files.writeString(tmp.resolve("host/file.txt"), "x");
        Path intoData = Files.createSymbolicLink(tmp.resolve("host/into-data"), dataDir);
        for (String invalid : List.of("relative/path", "./x", "~/x", tmp + "/a\0b", tmp + "/a\nb")) {
            assertEquals(FileErrorCodes.INVALID_PATH, code(() -> projects.quickStart(invalid)), invalid);
        }
        assertEquals(ErrorCodes.VALIDATION_FAILED, code(() -> projects.quickStart("")));
        for (String refused : List.of("/", dataDir.toString(), dataDir + "/sub", dataDir + "/../data/x",
                tmp.resolve("host").toString(), tmp.toString(), intoData.toString(), intoData + "/new")) {
            assertEquals(FileErrorCodes.PATH_NOT_ALLOWED, code(() -> projects.quickStart(refused)), refused);
        }
        assertFalse(Files.exists(dataDir.resolve("sub")), "nothing is created before the refusal");
        assertFalse(Files.exists(dataDir.resolve("new")));
        assertFalse(Files.exists(dataDir.resolve("x")));
        assertEquals(FileErrorCodes.NOT_A_DIRECTORY, code(() -> projects.quickStart(file.toString())));
        assertTrue(projects.list().isEmpty());
    }

    @Test
    void useReResolvesTheFolder() throws Exception {
        Path folder = Files.createDirectories(tmp.resolve("host/p1"));
        RegisteredProject p = projects.quickStart(folder.toString());
        assertEquals(folder.toRealPath(), projects.guard(p.name()).root());

        Files.delete(folder);
        assertEquals(ProjectErrorCodes.DIRECTORY_NOT_FOUND, code(() -> projects.guard(p.name())));
        Path elsewhere = Files.createDirectories(tmp.resolve("host/elsewhere"));
        Files.writeString(elsewhere.resolve("secret.txt"), "s");
        Files.createSymbolicLink(folder, elsewhere);
        assertEquals(FileErrorCodes.PATH_OUTSIDE_PROJECT, code(() -> projects.guard(p.name())),
                "a folder replaced by a link is refused");
        assertEquals(FileErrorCodes.PATH_OUTSIDE_PROJECT, code(() -> projects.files(p.name(),
                org.agentworkspace.core.files.FileLimits.defaults()).read("secret.txt")));
        assertEquals(ProjectErrorCodes.PROJECT_NOT_FOUND, code(() -> projects.guard("missing-00000000")));
        Files.delete(folder);
        Files.createDirectories(folder);
        assertEquals("GIT_UNAVAILABLE", code(() -> projects.git(p.name(),
                org.agentworkspace.api.vcs.VcsOptions.defaults()).close()), "no git implementation registered here");
    }

    @Test
    void aNameTakenByAnotherFolderGetsMoreDigits() throws Exception {
        Path folder = Files.createDirectories(tmp.resolve("host/clash"));
        String short8 = ProjectRegistry.nameFor(folder.toRealPath());
        store.write(h -> h.createUpdate("INSERT INTO projects (name, display_name, path, created_at) "
                + "VALUES (:n, 'squatter', '/somewhere/else', 0)").bind("n", short8).execute());

        RegisteredProject p = projects.quickStart(folder.toString());
        assertTrue(p.name().matches("clash-[0-9a-f]{16}"), p.name());
        assertTrue(p.name().startsWith(short8), p.name());
        assertEquals(p, projects.quickStart(folder.toString()), "and keeps it");
    }

    @Test
    void concurrentQuickStartsOfOneFolderRegisterItOnce() throws Exception {
        Path folder = tmp.resolve("host/racy");
        CountDownLatch go = new CountDownLatch(1);
        List<Future<String>> names = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < 16; i++) {
                names.add(pool.submit(() -> {
                    go.await();
                    return projects.quickStart(folder.toString()).name();
                }));
            }
            go.countDown();
            Set<String> distinct = new java.util.HashSet<>();
            for (Future<String> f : names) {
                distinct.add(f.get());
            }
            assertEquals(1, distinct.size(), distinct.toString());
        }
        assertEquals(1, projects.list().size());
    }

    @Test
    void userSecretsAreSealedBoundToTheirOwnerAndGoWithTheUser() throws Exception {
        User ann = auth.accounts().create("ann", "ann-password-1", null, true);
        User bob = auth.accounts().create("bob", "bob-password-1", null, false);
        String token = "ghp_CANARY0123456789abcdefSECRET";

        GitTokens.Status set = tokens.set(ann.id(), token, null);
        assertTrue(set.configured());
        assertEquals("…CRET", set.masked());
        assertEquals(set, tokens.status(ann.id()));
        assertEquals(new GitCredentials(GitTokens.DEFAULT_USERNAME, token), tokens.credentials(ann.id()).orElseThrow());
        assertFalse(tokens.status(bob.id()).configured());
        assertNull(tokens.status(bob.id()).masked());
        assertTrue(tokens.credentials(bob.id()).isEmpty());

        String stored = store.read(h -> h.createQuery("SELECT ciphertext FROM user_secrets WHERE user_id = :u")
                .bind("u", ann.id()).mapTo(String.class).one());
        assertTrue(stored.startsWith("v1:"), stored);
        assertFalse(stored.contains(token) || stored.contains("CANARY"), "only the sealed value is stored");

        // The same sealed text moved to another user does not open.
        store.write(h -> h.createUpdate("INSERT INTO user_secrets (user_id, kind, ciphertext, tail, updated_at) "
                + "VALUES (:u, 'git-token', :c, 'x', 0)").bind("u", bob.id()).bind("c", stored).execute());
        assertEquals(ErrorCodes.CONFLICT, code(() -> tokens.credentials(bob.id())));

        tokens.set(ann.id(), "short-token", "ann-gh");
        assertEquals(new GitTokens.Status(true, "…", "ann-gh"), tokens.status(ann.id()), "short tokens show no tail");
        assertEquals(new GitCredentials("ann-gh", "short-token"), tokens.credentials(ann.id()).orElseThrow());
        for (String[] bad : List.of(new String[] {"", null}, new String[] {"has space", null},
                new String[] {"tab\tin", null}, new String[] {"ok", "user:colon"}, new String[] {"ok", ""},
                new String[] {"x".repeat(4097), null})) {
            assertEquals(ErrorCodes.VALIDATION_FAILED, code(() -> tokens.set(ann.id(), bad[0], bad[1])));
        }
        assertTrue(tokens.delete(ann.id()));
        assertFalse(tokens.delete(ann.id()));
        assertFalse(tokens.status(ann.id()).configured());

        tokens.set(ann.id(), token, null);
        auth.accounts().delete(bob.id(), ann.id());
        long left = store.read(h -> h.createQuery("SELECT COUNT(*) FROM user_secrets WHERE user_id = :u")
                .bind("u", ann.id()).mapTo(Long.class).one());
        assertEquals(0, left, "deleting the user deletes their secrets");
    }
}
