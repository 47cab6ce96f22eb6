package io.tablestorecdc.flink.compat;

import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A Sink V2 whose writers are created from a {@link WriterInitContext}, the one way Flink 2.x
 * knows. This is the Flink 1.20 variant: Flink 1.20 still declares the deprecated {@code
 * createWriter(Sink.InitContext)} abstract, which Flink 2.x removed, so it is closed here. Flink
 * 1.20's sink operator calls {@link #createWriter(WriterInitContext)}; nothing calls the old one.
 *
 * @param <IN> the sink's input type
 */
@Internal
public abstract class WriterInitContextSink<IN> implements Sink<IN> {

    private static final long serialVersionUID = 1L;

    @Override
    public abstract SinkWriter<IN> createWriter(WriterInitContext context) throws IOException;

    @Override
    @Deprecated
    public final SinkWriter<IN> createWriter(InitContext context) {
        throw new UnsupportedOperationException(
                getClass().getName()
                        + " creates its writers with createWriter(WriterInitContext), which Flink"
                        + " 1.20 and 2.x call; call that one instead");
    }
}
