package io.tablestorecdc.checkpoint.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TableSettingsTest {

    private static Map<String, String> required() {
        Map<String, String> options = new HashMap<>();
        options.put("endpoint", "http://127.0.0.1:8080");
        options.put("instance.name", "inst");
        options.put("access.key.id", "id");
        options.put("access.key.secret", "very-secret");
        options.put("sts.token", "token-secret");
        options.put("table.name", "dim");
        return options;
    }

    private static TableSettings parse(Map<String, String> options) {
        return TableSettings.parse(
                options, key -> "set '" + key + "'", "table 'dim'", "docs/tablestore-table.md");
    }

    @Test
    void theConnectionOptionsGiveTheEndpointAndTable() {
        TableSettings settings = parse(required());

        TablestoreEndpoint endpoint = settings.tablestoreEndpoint();
        assertThat(endpoint.endpoint()).isEqualTo("http://127.0.0.1:8080");
        assertThat(endpoint.instanceName()).isEqualTo("inst");
        assertThat(settings.credentials().fixedCredentials().orElseThrow().accessKeySecret())
                .isEqualTo("very-secret");
        assertThat(settings.tableName()).isEqualTo("dim");
    }

    @Test
    void noTunnelNameIsNeededAndSecretsStayOutOfToString() {
        TableSettings settings = parse(required());

        assertThat(settings.toString())
                .contains("dim")
                .doesNotContain("very-secret")
                .doesNotContain("token-secret");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        Map<String, String> options = required();
        options.remove("table.name");
        options.remove("access.key.secret");
        options.put("endpoint", "ftp://nope");

        assertThatThrownBy(() -> parse(options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table 'dim'")
                .hasMessageContaining("'table.name'")
                .hasMessageContaining("'access.key.secret'")
                .hasMessageContaining("Option 'endpoint'")
                .hasMessageContaining("docs/tablestore-table.md");
    }

    @Test
    void anEnvironmentProviderNeedsNoKeys() {
        Map<String, String> options = required();
        options.remove("access.key.id");
        options.remove("access.key.secret");
        options.remove("sts.token");
        options.put("credentials.provider", "env");

        assertThat(parse(options).credentials().fixedCredentials()).isEmpty();
    }
}
