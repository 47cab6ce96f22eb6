package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.TableStoreException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Waiting for an answer as the SDK's {@code SyncClient} waits: its exceptions, its words. */
class SdkWaitTest {

    private static final ClientConfiguration CONFIG = new ClientConfiguration();

    @Test
    void anAnswerIsReturned() {
        assertThat(SdkWait.answer(CompletableFuture.completedFuture("page"), CONFIG))
                .isEqualTo("page");
    }

    @Test
    void theSdksOwnExceptionIsThrownAsItIs() {
        TableStoreException busy =
                new TableStoreException("busy", null, "OTSServerBusy", "r-1", 503);

        assertThatThrownBy(() -> SdkWait.answer(CompletableFuture.failedFuture(busy), CONFIG))
                .isSameAs(busy);
    }

    @Test
    void anotherFailureIsAnAbortedWait() {
        IOException io = new IOException("reset");

        assertThatThrownBy(() -> SdkWait.answer(CompletableFuture.failedFuture(io), CONFIG))
                .isInstanceOf(ClientException.class)
                .hasMessage("The thread was aborted")
                .hasCause(io);
    }

    @Test
    void anAnswerThatNeverComesEndsTheWaitAtTheClientsTimeout() {
        ClientConfiguration quick = new ClientConfiguration();
        quick.setSyncClientWaitFutureTimeoutInMillis(1);

        assertThatThrownBy(() -> SdkWait.answer(new CompletableFuture<>(), quick))
                .isInstanceOf(ClientException.class)
                .hasMessage("Wait future timeout");
    }
}
