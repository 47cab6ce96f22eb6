package io.tablestorecdc.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.e2e.DemoSettings.Engine;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DemoSettingsTest {

    @Test
    void defaultsRunBothEnginesOnTheEmbeddedEmulator() {
        DemoSettings settings = DemoSettings.parse();

        assertThat(settings.engines()).containsExactlyInAnyOrder(Engine.SPARK, Engine.FLINK);
        assertThat(settings.rows()).isEqualTo(2000);
        assertThat(settings.duration()).isEqualTo(Duration.ofSeconds(40));
        assertThat(settings.target()).isEmpty();
        assertThat(settings.table()).isEqualTo("orders");
        assertThat(settings.reshardEvery()).isEmpty();
        assertThat(settings.sourceTables()).containsExactly("orders");
        assertThat(settings.tableSelection()).containsEntry("table.name", "orders");
    }

    @Test
    void severalTablesAreNumberedAndSelectedByAPattern() {
        DemoSettings settings = DemoSettings.parse("--tables", "3", "--table", "shop");

        assertThat(settings.sourceTables()).containsExactly("shop_1", "shop_2", "shop_3");
        assertThat(settings.tableSelection()).containsEntry("table.pattern", "shop_[0-9]+");
        assertThatThrownBy(() -> DemoSettings.parse("--tables", "0"))
                .hasMessageContaining("--tables must be a positive integer");
    }

    @Test
    void readsEveryFlag() {
        DemoSettings settings =
                DemoSettings.parse(
                        "--engine",
                        "flink",
                        "--rows",
                        "50",
                        "--duration",
                        "2m",
                        "--rate",
                        "10",
                        "--seed",
                        "7",
                        "--table",
                        "t",
                        "--catch-up-timeout",
                        "500ms",
                        "--reshard-every",
                        "1m",
                        "--watch-every",
                        "30s",
                        "--endpoint",
                        "http://127.0.0.1:1",
                        "--instance",
                        "i",
                        "--access-key-id",
                        "id",
                        "--access-key-secret",
                        "hidden");

        assertThat(settings.engines()).containsExactly(Engine.FLINK);
        assertThat(settings.duration()).isEqualTo(Duration.ofMinutes(2));
        assertThat(settings.catchUpTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(settings.reshardEvery()).contains(Duration.ofMinutes(1));
        assertThat(settings.watchEvery()).contains(Duration.ofSeconds(30));
        assertThat(settings.target())
                .hasValueSatisfying(t -> assertThat(t.instanceName()).isEqualTo("i"));
        assertThat(settings.target().get().toString()).doesNotContain("hidden");
    }

    @Test
    void badFlagsAreNamedWithTheFix() {
        assertThatThrownBy(() -> DemoSettings.parse("--engine", "storm"))
                .hasMessage("--engine storm is not known: use spark, flink or both");
        assertThatThrownBy(() -> DemoSettings.parse("--rows", "-3"))
                .hasMessage("--rows must be a positive integer, not -3");
        assertThatThrownBy(() -> DemoSettings.parse("--duration", "soon"))
                .hasMessageContaining("such as 40s or 2m");
        assertThatThrownBy(() -> DemoSettings.parse("--rows")).hasMessage("--rows needs a value");
        assertThatThrownBy(() -> DemoSettings.parse("--colour", "red"))
                .hasMessage("Unknown or repeated flag --colour; see --help");
        assertThatThrownBy(() -> DemoSettings.parse("--endpoint", "http://127.0.0.1:1"))
                .hasMessageContaining("needs all of --endpoint, --instance");
    }

    @Test
    void helpPrintsUsageAndBadFlagsExitWithTwo() {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        assertThat(Demo.run(new String[] {"--help"}, new java.io.PrintStream(out))).isZero();
        assertThat(out.toString()).contains("--engine spark|flink|both");
        assertThat(Demo.run(new String[] {"--rows", "x"}, new java.io.PrintStream(out)))
                .isEqualTo(2);
    }
}
