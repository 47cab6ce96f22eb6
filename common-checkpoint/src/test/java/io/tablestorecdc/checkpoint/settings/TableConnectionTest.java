package io.tablestorecdc.checkpoint.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CredentialsSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sinks' connection options: the source's rules, secrets never shown. */
class TableConnectionTest {

    private static TableConnection parse(Map<String, String> options) {
        return TableConnection.parse(
                options, k -> "set it with .option(\"" + k + "\", ...)", "tablestore", "docs/x.md");
    }

    @Test
    void readsTheConnectionAndMasksTheSecrets() {
        TableConnection c =
                parse(
                        Map.of(
                                "endpoint", "http://127.0.0.1:8080",
                                "instance.name", "inst",
                                "access.key.id", "AK",
                                "access.key.secret", "TOP-SECRET",
                                "sts.token", "TOKEN-1",
                                "table.name", "orders"));
        assertThat(c.tableName()).isEqualTo("orders");
        assertThat(c.tablestoreEndpoint().instanceName()).isEqualTo("inst");
        assertThat(c.credentials().fixedCredentials().orElseThrow().accessKeySecret())
                .isEqualTo("TOP-SECRET");
        assertThat(c.toString())
                .contains("access.key.id=AK", "table.name=orders")
                .doesNotContain("TOP-SECRET", "TOKEN-1");
    }

    @Test
    void everyProblemIsListedWithItsFix() {
        assertThatThrownBy(
                        () ->
                                parse(
                                        Map.of(
                                                "endpoint", "ftp://x",
                                                "instance.name", "inst",
                                                "access.key.secret", "TOP-SECRET")))
                .hasMessageContaining("Invalid options for tablestore")
                .hasMessageContaining("Missing required option 'table.name'")
                .hasMessageContaining("Missing required option 'access.key.id'")
                .hasMessageContaining("Option 'endpoint': Invalid endpoint 'ftp://x'")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("TOP-SECRET"));
    }

    @Test
    void theCredentialsProviderOptionOfTheSourceApplies() {
        TableConnection c =
                parse(
                        Map.of(
                                "endpoint", "http://127.0.0.1:8080",
                                "instance.name", "inst",
                                "credentials.provider", "env",
                                "table.name", "orders"));
        assertThat(c.credentials().kind()).isEqualTo(CredentialsSource.Kind.ENV);
    }
}
