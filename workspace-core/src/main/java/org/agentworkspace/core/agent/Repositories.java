package org.agentworkspace.core.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;


import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.network.LazyHttpClient;
import org.agentworkspace.core.json.JsonMappers;

/**
 * Repositories for {@code githubUrl} runs: the URL check (before any connection), the clone, the branch push and
 * the pull request. Rules (docs/agent-runs.md): https only; the exact host must be on the allow-list (default
 * {@code github.com}); no user info; no port but 443; the path is {@code /<owner>/<repo>[.git]}; every address the
 * host resolves to must be public (no loopback, private, link-local, CGNAT, multicast or metadata address); HTTP
 * redirects are not followed. Hosts in the test-only insecure list may use http, another port and local addresses.
 * The token travels only in a JGit credentials provider for that host and in the GitHub API's Authorization
 * header: never in {@code .git/config}, a URL, a log line or an error message.
 */
public final class Repositories {
    private static final System.Logger LOG = System.getLogger(Repositories.class.getName());
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    private static final Pattern BRANCH = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/-]{0,199}");

    private final AgentSettings settings;
    private final Path cloneRoot;
    private final ObjectMapper mapper = JsonMappers.shared();
    private final LazyHttpClient http = new LazyHttpClient(() -> HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(10)).build());
    private final SecureRandom random = new SecureRandom();

    public Repositories(AgentSettings settings, Path dataDir) {
        this.settings = settings;
        this.cloneRoot = dataDir.resolve("clones");
    }

    /** A checked repository URL. */
    public record RepositoryUrl(URI uri, String host, int port, String owner, String repo) {
        /** The URL without credentials, for logs and metadata. */
        public String display() {
            return uri.toString();
        }
    }

    /** A working tree prepared for a run; {@code temporary} when it lives under our clone root. */
    public record Checkout(Path dir, boolean temporary) {
    }

    public record Published(String branch, Optional<String> pullRequestUrl) {
    }

    private static WorkspaceException invalid(String why) {
        return new WorkspaceException.Validation(AgentErrorCodes.INVALID_REPOSITORY_URL,
                "invalid repository URL: " + why);
    }

    /** Checks a repository URL without connecting to it (it does resolve the host name). */
    public RepositoryUrl validate(String raw) {
        if (raw.length() > 2048 || raw.chars().anyMatch(c -> c <= 0x20 || c == 0x7f)) {
            throw invalid("not a URL");
        }
        URI uri;
        try {
            uri = new URI(raw);
        } catch (URISyntaxException e) {
            throw invalid("not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (uri.getRawAuthority() == null || uri.getHost() == null) {
            throw invalid("an absolute https URL is required");
        }
        if (uri.getRawUserInfo() != null || uri.getRawAuthority().contains("@")) {
            throw invalid("credentials in the URL are not accepted; use githubToken");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw invalid("no query or fragment");
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        int port = uri.getPort();
        String hostPort = port < 0 ? host : host + ":" + port;
        boolean insecure = settings.insecureCloneHosts().contains(hostPort);
        if (!(scheme.equals("https") || (scheme.equals("http") && insecure))) {
            throw invalid("only https is allowed");
        }
        if (!insecure) {
            if (port >= 0 && port != 443) {
                throw invalid("only the default https port is allowed");
            }
            if (!settings.cloneAllowedHosts().contains(host) && !settings.cloneAllowedHosts().contains(hostPort)) {
                throw invalid("host " + host + " is not on the allow-list");
            }
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        String[] parts = path.split("/", -1);
        if (parts.length != 3 || !parts[0].isEmpty() || !SEGMENT.matcher(parts[1]).matches()
                || !SEGMENT.matcher(parts[2]).matches() || parts[2].equals(".git") || parts[1].contains("..")
                || parts[2].contains("..")) {
            throw invalid("the path must be /<owner>/<repo>");
        }
        String repo = parts[2].endsWith(".git") ? parts[2].substring(0, parts[2].length() - 4) : parts[2];
        if (!insecure) {
            requirePublicAddresses(host);
        }
        return new RepositoryUrl(uri, host, port < 0 ? 443 : port, parts[1], repo);
    }

    private static void requirePublicAddresses(String host) {
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw invalid("the host does not resolve");
        }
        for (InetAddress a : all) {
            if (!isPublic(a)) {
                throw invalid("the host resolves to a local or private address");
            }
        }
    }

    /** False for loopback, any-local, link-local (incl. 169.254.169.254), site-local, CGNAT, ULA and multicast. */
    static boolean isPublic(InetAddress a) {
        if (a.isAnyLocalAddress() || a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress()
                || a.isMulticastAddress()) {
            return false;
        }
        byte[] b = a.getAddress();
        if (b.length == 4) {
            int b0 = b[0] & 0xff;
            int b1 = b[1] & 0xff;
            return !(b0 == 0 || b0 == 10 || b0 == 127 || (b0 == 100 && b1 >= 64 && b1 < 128)
                    || (b0 == 169 && b1 == 254) || (b0 == 172 && b1 >= 16 && b1 < 32) || (b0 == 192 && b1 == 168)
                    || b0 >= 224 || (b0 == 198 && (b1 == 18 || b1 == 19)));
        }
        int b0 = b[0] & 0xff;
        if ((b0 & 0xfe) == 0xfc) {
            return false; // fc00::/7 unique local
        }
        // IPv4-mapped ::ffff:a.b.c.d
        boolean mapped = true;
        for (int i = 0; i < 10; i++) {
            mapped &= b[i] == 0;
        }
        if (mapped && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
            try {
                return isPublic(InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]}));
            } catch (UnknownHostException e) {
                return false;
            }
        }
        return true;
    }

    public static void validateBranchName(String name) {
        if (!BRANCH.matcher(name).matches() || name.contains("..") || name.contains("//") || name.endsWith("/")
                || name.endsWith(".lock") || name.endsWith(".") || name.contains("/.") || name.contains("@{")) {
            throw WorkspaceException.Validation.of("branchName is not a valid git branch name");
        }
    }

    public static boolean isGitRepository(Path dir) {
        return Files.isDirectory(dir.resolve(".git"));
    }

    /**
     * Clones the repository into {@code target} (which must not exist or be empty), or into a fresh temporary
     * directory under {@code <dataDir>/clones} when {@code target} is null. The remote is configured without
     * credentials and with {@code http.followRedirects=false}.
     */
    public Checkout checkout(RepositoryUrl url, Path target, Optional<String> token) {
        boolean temporary = target == null;
        Path dir;
        try {
            if (temporary) {
                Files.createDirectories(cloneRoot);
                dir = cloneRoot.resolve(url.repo() + "-" + ""
                        + Long.toString(System.nanoTime(), 36) + Integer.toString(random.nextInt(1 << 20), 36));
            } else {
                dir = target;
                if (Files.exists(dir)) {
                    try (Stream<Path> s = Files.list(dir)) {
                        if (s.findAny().isPresent()) {
                            throw new WorkspaceException.Validation(AgentErrorCodes.INVALID_PROJECT_PATH,
                                    "projectPath must be empty or missing when githubUrl is given");
                        }
                    }
                }
            }
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new WorkspaceException.Validation(AgentErrorCodes.INVALID_PROJECT_PATH,
                    "the clone directory cannot be created");
        }
        try {
            RepositoryGit.cloneInto(dir, url.display(), token);
        } catch (RuntimeException | IOException e) {
            if (temporary) {
                delete(dir, true);
            } else {
                emptyDirectory(dir); // it was empty before: leave no half clone behind
            }
            LOG.log(System.Logger.Level.INFO, "clone of " + url.display() + " failed: "
                    + RepositoryGit.cause(e).getClass().getSimpleName());
            throw new WorkspaceException.Validation(AgentErrorCodes.CLONE_FAILED,
                    "cloning " + url.display() + " failed");
        }
        return new Checkout(dir, temporary);
    }

    /** Deletes a temporary clone (never a caller's own {@code projectPath}). */
    public void cleanup(Checkout c) {
        delete(c.dir(), c.temporary());
    }

    private static void emptyDirectory(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(dir)).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot empty " + dir);
        }
    }

    private static void delete(Path dir, boolean temporary) {
        if (!temporary) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot remove the clone " + dir);
        }
    }

    /**
     * After a run: commits what the agent left uncommitted, creates (or checks out) the branch, pushes it to origin
     * with the token, and opens a pull request against the branch the clone started from.
     */
    public Published publish(Path project, Optional<String> branchName, String message, Optional<String> token,
                             boolean createPr, Optional<RepositoryUrl> githubUrl) {
        try {
            String branch = branchName.orElseGet(() -> autoBranch(message));
            String base = RepositoryGit.commitOnBranch(project, branch, subject(message));
            if (token.isEmpty()) {
                return new Published(branch, Optional.empty());
            }
            RepositoryUrl url = githubUrl.isPresent() ? githubUrl.get() : validate(RepositoryGit.originUrl(project));
            RepositoryGit.push(project, branch, token.get());
            if (!createPr) {
                return new Published(branch, Optional.empty());
            }
            List<String> commits = RepositoryGit.recentSubjects(project, 5).stream().map(c -> "- " + c).toList();
            return new Published(branch, Optional.of(pullRequest(url, branch, base, commits.isEmpty()
                    ? subject(message) : commits.getFirst().substring(2), commits, token.get())));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.INFO, "publishing failed: "
                    + RepositoryGit.cause(e).getClass().getSimpleName());
            throw new WorkspaceException.Validation("GITHUB_FAILED", "pushing the branch failed");
        }
    }

    private String pullRequest(RepositoryUrl url, String head, String base, String title, List<String> commits,
                               String token) {
        ObjectNode body = mapper.createObjectNode();
        body.put("title", title);
        body.put("head", head);
        body.put("base", base);
        body.put("body", "## Changes\n\n" + String.join("\n", commits) + "\n\n---\nOpened by Agent Workspace.");
        URI api = URI.create(settings.githubApiUrl().toString().replaceAll("/+$", "") + "/repos/" + url.owner()
                + "/" + url.repo() + "/pulls");
        HttpRequest req = HttpRequest.newBuilder(api).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/vnd.github+json").header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").header("X-GitHub-Api-Version", "2022-11-28")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        try {
            HttpResponse<String> res = http.get().send(req, HttpResponse.BodyHandlers.ofString());
            if (res.statusCode() != 201) {
                throw new WorkspaceException.Validation("GITHUB_FAILED",
                        "the pull request was refused (HTTP " + res.statusCode() + ")");
            }
            JsonNode created = mapper.readTree(res.body());
            return created.path("html_url").asText(created.path("url").asText());
        } catch (IOException e) {
            throw new WorkspaceException.Validation("GITHUB_FAILED", "the GitHub API cannot be reached");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WorkspaceException.Validation("GITHUB_FAILED", "interrupted");
        }
    }

    private static String subject(String message) {
        String first = message.strip().lines().findFirst().orElse("Agent changes");
        return first.length() > 72 ? first.substring(0, 72) : first;
    }

    /** A branch name from the message: {@code agent/<slug>-<base36 time>}. */
    static String autoBranch(String message) {
        String slug = message.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
        if (slug.length() > 40) {
            slug = slug.substring(0, 40).replaceAll("-+$", "");
        }
        String t = Long.toString(System.currentTimeMillis(), 36);
        return "agent/" + (slug.isEmpty() ? "run" : slug) + "-" + t.substring(Math.max(0, t.length() - 6));
    }

}
