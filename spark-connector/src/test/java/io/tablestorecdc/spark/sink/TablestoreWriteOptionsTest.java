package io.tablestorecdc.spark.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.write.WriteMode;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The write options of {@code format("tablestore")}: defaults, every check, secrets masked. */
class TablestoreWriteOptionsTest {

    private static Map<String, String> connection() {
        Map<String, String> options = new HashMap<>();
        options.put("endpoint", "http://127.0.0.1:8080");
        options.put("instance.name", "inst");
        options.put("access.key.id", "AK");
        options.put("access.key.secret", "TOP-SECRET");
        options.put("table.name", "orders");
        return options;
    }

    @Test
    void defaultsArePutModeDeletesWritten200RowsAnd3Retries() {
        TablestoreWriteOptions options = TablestoreWriteOptions.parse(connection());
        assertThat(options.mode()).isEqualTo(WriteMode.PUT);
        assertThat(options.settings().ignoreDelete()).isFalse();
        assertThat(options.settings().maxRows()).isEqualTo(200);
        assertThat(options.settings().maxRetries()).isEqualTo(3);
        assertThat(options.toString()).contains("access.key.id=AK").doesNotContain("TOP-SECRET");
    }

    @Test
    void takesEveryWriteOptionCaseInsensitively() {
        Map<String, String> raw = connection();
        raw.put("Write.Mode", "update");
        raw.put("write.ignore.delete", "true");
        raw.put("write.batch.max.rows", "50");
        raw.put("write.max.retries", "0");
        TablestoreWriteOptions options = TablestoreWriteOptions.parse(raw);
        assertThat(options.mode()).isEqualTo(WriteMode.UPDATE);
        assertThat(options.settings().ignoreDelete()).isTrue();
        assertThat(options.settings().maxRows()).isEqualTo(50);
        assertThat(options.settings().maxRetries()).isZero();
    }

    @Test
    void listsEveryProblemWithItsFix() {
        Map<String, String> raw = connection();
        raw.remove("table.name");
        raw.put("write.batch.max.rows", "500");
        raw.put("write.mode", "merge");
        raw.put("write.ignore.delete", "maybe");
        assertThatThrownBy(() -> TablestoreWriteOptions.parse(raw))
                .hasMessageContaining("Invalid options for format(\"tablestore\")")
                .hasMessageContaining("Missing required option 'table.name'")
                .hasMessageContaining(
                        "Option 'write.batch.max.rows' has invalid value '500': use a whole"
                                + " number from 1 to 200")
                .hasMessageContaining("Option 'write.mode' has invalid value 'merge'")
                .hasMessageContaining("'write.ignore.delete'")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("TOP-SECRET"));
    }
}
