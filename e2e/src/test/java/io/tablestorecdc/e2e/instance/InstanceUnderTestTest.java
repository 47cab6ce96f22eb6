package io.tablestorecdc.e2e.instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CredentialsSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InstanceUnderTestTest {

    private static final Map<String, String> INSTANCE =
            Map.of(
                    "TABLESTORE_ENDPOINT", "https://myinstance.cn-hangzhou.ots.aliyuncs.com",
                    "TABLESTORE_INSTANCE", "myinstance");

    @Test
    void withoutAnEndpointThereIsNoInstanceAndTheReasonNamesTheVariables() throws Exception {
        InstanceUnderTest.Resolution none = InstanceUnderTest.resolve("environment", Map.of());

        assertThat(none.instance()).isEmpty();
        assertThat(none.reason())
                .contains("TABLESTORE_ENDPOINT", "TABLESTORE_INSTANCE", "docs/real-instance.md");
    }

    @Test
    void anInstanceWithoutCredentialsIsSkippedNamingTheMissingVariables() throws Exception {
        InstanceUnderTest.Resolution none = InstanceUnderTest.resolve("", INSTANCE);

        assertThat(none.instance()).isEmpty();
        assertThat(none.reason())
                .contains("ALIBABA_CLOUD_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_SECRET");
    }

    @Test
    void credentialsComeFromTheEnvironmentAndTheSecretAndTokenAreWatchedFor() throws Exception {
        Map<String, String> env = new java.util.HashMap<>(INSTANCE);
        env.put("ALIBABA_CLOUD_ACCESS_KEY_ID", "LTAIexample");
        env.put("ALIBABA_CLOUD_ACCESS_KEY_SECRET", "the-secret");
        env.put("ALIBABA_CLOUD_SECURITY_TOKEN", "the-token");

        InstanceUnderTest instance =
                InstanceUnderTest.resolve("environment", env).instance().orElseThrow();

        assertThat(instance.connection().credentials().kind())
                .isEqualTo(CredentialsSource.Kind.ENV);
        assertThat(instance.connection().sparkOptions())
                .containsEntry("credentials.provider", "env")
                .doesNotContainKeys("access.key.id", "access.key.secret", "sts.token");
        assertThat(instance.secrets()).containsExactly("the-secret", "the-token");
        assertThat(instance.toString()).doesNotContain("the-secret", "the-token");
        assertThat(instance.isEmulator()).isFalse();
    }

    @Test
    void anUnknownTargetIsRefusedWithTheValuesThatWork() {
        assertThatThrownBy(() -> InstanceUnderTest.resolve("cloud", INSTANCE))
                .hasMessageContaining("tsc.real.instance.target")
                .hasMessageContaining("emulator or environment");
    }
}
