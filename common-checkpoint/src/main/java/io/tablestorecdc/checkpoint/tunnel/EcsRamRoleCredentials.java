package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.core.auth.CredentialsProvider;
import com.alicloud.openservices.tablestore.core.auth.DefaultCredentials;
import com.alicloud.openservices.tablestore.core.auth.ServiceCredentials;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The temporary credentials of an ECS instance's RAM role, from the instance metadata service
 * ({@code GET <endpoint>/latest/meta-data/ram/security-credentials/<role>}), fetched again once
 * fewer than {@link #REFRESH_BEFORE_EXPIRY} remain before they expire.
 *
 * <p>When a refresh fails, the credentials in hand are kept while they are valid (a warning is
 * logged, never a secret); a request after they expired fails with the reason.
 */
final class EcsRamRoleCredentials implements CredentialsProvider {

    /** How long before the expiry credentials are replaced: the service issues new ones by then. */
    static final Duration REFRESH_BEFORE_EXPIRY = Duration.ofMinutes(5);

    private static final Logger LOG = LoggerFactory.getLogger(EcsRamRoleCredentials.class);
    private static final String PATH = "/latest/meta-data/ram/security-credentials/";
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final String endpoint;
    private final Optional<String> roleName;
    private final Clock clock;
    private final HttpClient http;
    private ServiceCredentials current;
    private Instant expiresAt = Instant.MIN;

    EcsRamRoleCredentials(String endpoint, Optional<String> roleName) {
        this(endpoint, roleName, Clock.systemUTC());
    }

    EcsRamRoleCredentials(String endpoint, Optional<String> roleName, Clock clock) {
        this.endpoint = endpoint;
        this.roleName = roleName;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    }

    @Override
    public synchronized ServiceCredentials getCredentials() {
        Instant now = clock.instant();
        if (current != null && now.isBefore(expiresAt.minus(REFRESH_BEFORE_EXPIRY))) {
            return current;
        }
        try {
            fetch();
        } catch (IllegalStateException e) {
            if (current != null && now.isBefore(expiresAt)) {
                LOG.warn(
                        "Could not refresh the RAM role credentials, keeping those valid until {}:"
                                + " {}",
                        expiresAt,
                        e.getMessage());
                return current;
            }
            throw e;
        }
        return current;
    }

    @Override
    public synchronized void setCredentials(ServiceCredentials credentials) {
        throw new UnsupportedOperationException(
                "The RAM role credentials come from the instance metadata service; they cannot be"
                        + " set");
    }

    private void fetch() {
        String role = roleName.orElseGet(this::attachedRole);
        String body = get(PATH + role);
        String code = field(body, "Code").orElse("Success");
        if (!code.equals("Success")) {
            throw failure("the service answered Code=" + code + " for role '" + role + "'");
        }
        String id = field(body, "AccessKeyId").orElseThrow(() -> missingField("AccessKeyId"));
        String secret =
                field(body, "AccessKeySecret").orElseThrow(() -> missingField("AccessKeySecret"));
        String token =
                field(body, "SecurityToken").orElseThrow(() -> missingField("SecurityToken"));
        String expiration = field(body, "Expiration").orElseThrow(() -> missingField("Expiration"));
        try {
            expiresAt = Instant.parse(expiration);
        } catch (DateTimeParseException e) {
            throw failure("its Expiration '" + expiration + "' is not an ISO-8601 instant");
        }
        current = new DefaultCredentials(id, secret, token);
        LOG.info(
                "Fetched credentials of RAM role '{}' (access key id {}), valid until {}",
                role,
                id,
                expiresAt);
    }

    private String attachedRole() {
        String listing = get(PATH).strip();
        String first =
                listing.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("");
        if (first.isEmpty()) {
            throw failure(
                    "no RAM role is attached to this instance; attach one, or set"
                            + " credentials.ecs.role.name");
        }
        return first;
    }

    private String get(String path) {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(endpoint + path)).timeout(TIMEOUT).GET().build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw failure("GET " + path + " failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure("interrupted while fetching " + path);
        }
        if (response.statusCode() != 200) {
            throw failure(
                    "GET "
                            + path
                            + " answered HTTP "
                            + response.statusCode()
                            + (response.statusCode() == 404
                                    ? " (no such role; check credentials.ecs.role.name)"
                                    : ""));
        }
        return response.body();
    }

    private IllegalStateException missingField(String name) {
        return failure("its answer has no " + name);
    }

    private IllegalStateException failure(String why) {
        return new IllegalStateException(
                "Cannot get RAM role credentials from the instance metadata service at "
                        + endpoint
                        + ": "
                        + why
                        + ". Run on an ECS instance with a RAM role, set"
                        + " credentials.ecs.metadata.endpoint, or choose another"
                        + " credentials.provider");
    }

    // The answer is one flat JSON object of strings; its values are read, never logged.
    private static Optional<String> field(String json, String name) {
        Matcher m =
                Pattern.compile(
                                "\""
                                        + Pattern.quote(name)
                                        + "\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"")
                        .matcher(json);
        return m.find() ? Optional.of(m.group(1).replace("\\/", "/")) : Optional.empty();
    }
}
