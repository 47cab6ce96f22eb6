package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.core.auth.DefaultCredentials;
import com.alicloud.openservices.tablestore.core.auth.ServiceCredentials;
import com.sun.net.httpserver.HttpServer;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.emulator.testkit.ManualClock;
import io.tablestorecdc.emulator.testkit.SettableCredentialsProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SdkCredentialsTest {

    private static final String ROLE_PATH = "/latest/meta-data/ram/security-credentials/";

    private HttpServer metadata;
    private final AtomicReference<String> answer = new AtomicReference<>();
    private final AtomicInteger status = new AtomicInteger(200);
    private final AtomicInteger fetches = new AtomicInteger();

    @AfterEach
    void stop() {
        if (metadata != null) {
            metadata.stop(0);
        }
    }

    @Test
    void staticYieldsTheGivenKeyAndMasksItsSecrets() {
        SdkCredentials credentials =
                SdkCredentials.open(
                        CredentialsSource.fixed(TablestoreCredentials.of("AKID", "s3cr3t", "t0k")));

        ServiceCredentials got = credentials.getCredentials();

        assertThat(got.getAccessKeyId()).isEqualTo("AKID");
        assertThat(got.getAccessKeySecret()).isEqualTo("s3cr3t");
        assertThat(got.getSecurityToken()).isEqualTo("t0k");
        assertThat(credentials.toString()).contains("AKID").doesNotContain("s3cr3t", "t0k");
        assertThat(SecretRedactor.of(credentials).redact("x s3cr3t t0k"))
                .isEqualTo("x ****** ******");
    }

    @Test
    void envReadsAlibabaCloudsVariables() {
        SdkCredentials credentials =
                SdkCredentials.open(
                        CredentialsSource.environment(),
                        Map.of(
                                "ALIBABA_CLOUD_ACCESS_KEY_ID", "env-id",
                                "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "env-secret",
                                "ALIBABA_CLOUD_SECURITY_TOKEN", "env-token"));

        ServiceCredentials got = credentials.getCredentials();

        assertThat(got.getAccessKeyId()).isEqualTo("env-id");
        assertThat(got.getAccessKeySecret()).isEqualTo("env-secret");
        assertThat(got.getSecurityToken()).isEqualTo("env-token");
        assertThat(credentials.toString()).doesNotContain("env-secret", "env-token", "env-id");
    }

    @Test
    void envWithoutATokenGivesALongLivedKey() {
        ServiceCredentials got =
                SdkCredentials.open(
                                CredentialsSource.environment(),
                                Map.of(
                                        "ALIBABA_CLOUD_ACCESS_KEY_ID", "env-id",
                                        "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "env-secret"))
                        .getCredentials();

        assertThat(got.getSecurityToken()).isNull();
    }

    @Test
    void envMissingAVariableNamesItAndTheFix() {
        assertThatThrownBy(
                        () ->
                                SdkCredentials.open(
                                        CredentialsSource.environment(),
                                        Map.of("ALIBABA_CLOUD_ACCESS_KEY_ID", "env-id")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("credentials.provider' is env")
                .hasMessageContaining("ALIBABA_CLOUD_ACCESS_KEY_SECRET is not set")
                .hasMessageContaining("or choose another credentials.provider");
        assertThatThrownBy(() -> SdkCredentials.open(CredentialsSource.environment(), Map.of()))
                .hasMessageContaining(
                        "ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET are not"
                                + " set");
    }

    @Test
    void aProviderClassIsBuiltAndAskedOnEveryCall() {
        SettableCredentialsProvider.set(new DefaultCredentials("user-id", "user-secret-1"));
        SdkCredentials credentials =
                SdkCredentials.open(
                        CredentialsSource.providerClass(
                                SettableCredentialsProvider.class.getName()));

        assertThat(credentials.getCredentials().getAccessKeySecret()).isEqualTo("user-secret-1");
        SettableCredentialsProvider.set(new DefaultCredentials("user-id", "user-secret-2", "tk"));
        assertThat(credentials.getCredentials().getAccessKeySecret()).isEqualTo("user-secret-2");

        // The secret just replaced is still masked: a message may be from a request that used it.
        assertThat(SecretRedactor.of(credentials).redact("user-secret-1 user-secret-2 tk"))
                .isEqualTo("****** ****** ******");
        assertThat(credentials.toString())
                .contains(SettableCredentialsProvider.class.getName())
                .doesNotContain("user-secret");
    }

    @Test
    void aClassThatCannotBeAProviderIsNamedWithTheFix() {
        assertThat(SdkCredentials.providerClassProblem("com.example.NoSuchProvider"))
                .hasValueSatisfying(
                        m ->
                                assertThat(m)
                                        .contains("'com.example.NoSuchProvider'")
                                        .contains("no such class on the classpath")
                                        .contains("use static, env, ecs-ram-role"));
        assertThat(SdkCredentials.providerClassProblem("java.lang.String"))
                .hasValueSatisfying(
                        m ->
                                assertThat(m)
                                        .contains("does not implement")
                                        .contains(
                                                "com.alicloud.openservices.tablestore.core.auth"
                                                        + ".CredentialsProvider"));
        assertThat(
                        SdkCredentials.providerClassProblem(
                                NoDefaultConstructorProvider.class.getName()))
                .hasValueSatisfying(
                        m -> assertThat(m).contains("no public no-argument constructor; add one"));
        assertThat(SdkCredentials.providerClassProblem(SettableCredentialsProvider.class.getName()))
                .isEmpty();
    }

    @Test
    void ecsRamRoleFetchesTheAttachedRoleAndRefreshesBeforeExpiry() throws IOException {
        ManualClock clock = new ManualClock();
        serveMetadata("my-role", clock.instant().plus(Duration.ofMinutes(60)), "1");
        EcsRamRoleCredentials provider =
                new EcsRamRoleCredentials(metadataEndpoint(), Optional.empty(), clock);

        ServiceCredentials first = provider.getCredentials();
        assertThat(first.getAccessKeyId()).isEqualTo("STS.id-1");
        assertThat(first.getAccessKeySecret()).isEqualTo("secret-1");
        assertThat(first.getSecurityToken()).isEqualTo("token-1");
        int afterFirst = fetches.get();

        clock.advance(Duration.ofMinutes(54));
        assertThat(provider.getCredentials()).isSameAs(first);
        assertThat(fetches.get()).isEqualTo(afterFirst);

        answer.set(credentialsJson(clock.instant().plus(Duration.ofMinutes(60)), "2"));
        clock.advance(Duration.ofMinutes(1));
        assertThat(provider.getCredentials().getAccessKeySecret()).isEqualTo("secret-2");
    }

    @Test
    void ecsRamRoleKeepsValidCredentialsWhenARefreshFailsAndFailsOnceTheyExpired()
            throws IOException {
        ManualClock clock = new ManualClock();
        serveMetadata("my-role", clock.instant().plus(Duration.ofMinutes(10)), "1");
        EcsRamRoleCredentials provider =
                new EcsRamRoleCredentials(metadataEndpoint(), Optional.of("my-role"), clock);
        ServiceCredentials first = provider.getCredentials();

        status.set(500);
        clock.advance(Duration.ofMinutes(6));
        assertThat(provider.getCredentials()).isSameAs(first);

        clock.advance(Duration.ofMinutes(5));
        assertThatThrownBy(provider::getCredentials)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("instance metadata service at " + metadataEndpoint())
                .hasMessageContaining("HTTP 500")
                .hasMessageContaining("set credentials.ecs.metadata.endpoint")
                .hasMessageNotContaining("secret-1")
                .hasMessageNotContaining("token-1");
    }

    @Test
    void ecsRamRoleOfAnUnknownRoleSaysSo() throws IOException {
        ManualClock clock = new ManualClock();
        serveMetadata("my-role", clock.instant().plus(Duration.ofMinutes(60)), "1");
        EcsRamRoleCredentials provider =
                new EcsRamRoleCredentials(metadataEndpoint(), Optional.of("other-role"), clock);

        assertThatThrownBy(provider::getCredentials)
                .hasMessageContaining("HTTP 404 (no such role; check credentials.ecs.role.name)");
    }

    private void serveMetadata(String role, Instant expiration, String generation)
            throws IOException {
        answer.set(credentialsJson(expiration, generation));
        metadata = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        metadata.createContext(
                "/",
                exchange -> {
                    String path = exchange.getRequestURI().getPath();
                    String body;
                    int code = status.get();
                    if (path.equals(ROLE_PATH)) {
                        body = role + "\n";
                    } else if (path.equals(ROLE_PATH + role)) {
                        fetches.incrementAndGet();
                        body = answer.get();
                    } else {
                        code = 404;
                        body = "Not Found";
                    }
                    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(code, bytes.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(bytes);
                    }
                    exchange.close();
                });
        metadata.start();
    }

    private String metadataEndpoint() {
        return "http://127.0.0.1:" + metadata.getAddress().getPort();
    }

    private static String credentialsJson(Instant expiration, String generation) {
        return "{\"AccessKeyId\":\"STS.id-"
                + generation
                + "\",\"AccessKeySecret\":\"secret-"
                + generation
                + "\",\"Expiration\":\""
                + expiration
                + "\",\"SecurityToken\":\"token-"
                + generation
                + "\",\"LastUpdated\":\"2026-01-01T00:00:00Z\",\"Code\":\"Success\"}";
    }
}
