package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.read.TunnelPages;
import org.junit.jupiter.api.Test;

/** The JVM-wide cache over real SDK clients (built without contacting any server). */
class ExecutorClientsTest {

    private static final String ENDPOINT = "http://127.0.0.1:1";

    static TablestoreEndpoint endpoint(String secret, String stsToken) {
        return new TablestoreEndpoint(
                ENDPOINT, "inst", TablestoreCredentials.of("the-key-id", secret, stsToken));
    }

    @Test
    void tasksWithTheSameCredentialsShareTheSdkClients() {
        try (var a = ExecutorClients.tunnel(endpoint("s3cr3t-one", null));
                var b = ExecutorClients.tunnel(endpoint("s3cr3t-one", null));
                var metaA = ExecutorClients.metaTable(endpoint("s3cr3t-one", null), "meta");
                var metaB = ExecutorClients.metaTable(endpoint("s3cr3t-one", null), "meta")) {
            assertThat(b.client()).isSameAs(a.client());
            assertThat(metaB.client()).isSameAs(metaA.client());
        }
    }

    @Test
    void differentSecretsTokensOrMetaTablesNeverShareAClient() {
        try (var plain = ExecutorClients.tunnel(endpoint("s3cr3t-two", null));
                var otherSecret = ExecutorClients.tunnel(endpoint("s3cr3t-three", null));
                var withToken = ExecutorClients.tunnel(endpoint("s3cr3t-two", "t0ken-a"));
                var otherToken = ExecutorClients.tunnel(endpoint("s3cr3t-two", "t0ken-b"));
                var meta = ExecutorClients.metaTable(endpoint("s3cr3t-two", null), "meta");
                var otherMeta = ExecutorClients.metaTable(endpoint("s3cr3t-two", null), "meta2")) {
            assertThat(otherSecret.client()).isNotSameAs(plain.client());
            assertThat(withToken.client()).isNotSameAs(plain.client());
            assertThat(otherToken.client()).isNotSameAs(withToken.client());
            assertThat(otherMeta.client()).isNotSameAs(meta.client());
        }
    }

    @Test
    void keysTellCredentialsApartWithoutShowingThem() {
        ClientKey key = ClientKey.of(endpoint("s3cr3t-four", "t0ken-c"));

        assertThat(key).isEqualTo(ClientKey.of(endpoint("s3cr3t-four", "t0ken-c")));
        assertThat(key).isNotEqualTo(ClientKey.of(endpoint("s3cr3t-four", null)));
        assertThat(key).isNotEqualTo(ClientKey.of(endpoint("s3cr3t-five", "t0ken-c")));
        assertThat(key.credentialsDigest()).doesNotContain("s3cr3t", "t0ken");
        assertThat(key.toString())
                .contains(ENDPOINT, "inst", "the-key-id")
                .doesNotContain("s3cr3t", "t0ken", key.credentialsDigest());
        try (var lease = ExecutorClients.tunnel(endpoint("s3cr3t-four", "t0ken-c"))) {
            assertThat(lease.toString() + lease.client()).doesNotContain("s3cr3t", "t0ken");
        }
    }

    @Test
    void aTaskClosingItsViewLeavesTheSharedProxyOpen() {
        try (var lease = ExecutorClients.tunnel(endpoint("s3cr3t-six", null))) {
            TunnelPages view = TunnelPages.direct(lease.client().proxy());
            view.close();

            assertThat(lease.client().unreportedRetries()).isZero();
            try (var again = ExecutorClients.tunnel(endpoint("s3cr3t-six", null))) {
                assertThat(again.client()).isSameAs(lease.client());
            }
        }
    }

    @Test
    void readTasksOfOneTableShareItsServiceAndReturnItOnClose() {
        int before = ExecutorClients.cachedTables();
        try (var a = ExecutorClients.table(endpoint("s3cr3t-seven", null), "orders");
                var b = ExecutorClients.table(endpoint("s3cr3t-seven", null), "orders")) {
            assertThat(ExecutorClients.cachedTables()).isEqualTo(before + 1);
            assertThat(a.tableName()).isEqualTo("orders");
            try (var other = ExecutorClients.table(endpoint("s3cr3t-seven", null), "items");
                    var otherSecret =
                            ExecutorClients.table(endpoint("s3cr3t-eight", null), "orders")) {
                assertThat(ExecutorClients.cachedTables()).isEqualTo(before + 3);
                assertThat(otherSecret.toString()).doesNotContain("s3cr3t");
            }
            a.close();
            a.close(); // returned once
            assertThat(b.tableName()).isEqualTo("orders");
        }
        // Returned, not closed: the next task of this JVM borrows the same one.
        try (var again = ExecutorClients.table(endpoint("s3cr3t-seven", null), "orders")) {
            assertThat(ExecutorClients.cachedTables()).isEqualTo(before + 3);
        }
    }
}
