// The Curator side of zookeeper_bench: Apache Curator's InterProcessMutex (Debian's jars)
// measured the way the C++ side measures distlock, against the same ZooKeeper.
//
//   CuratorBench --connect HOSTS --path /bench/lock --mode uncontended|contended
//                [--seconds S] [--warmup-seconds S] [--rounds N] [--waiters N]
//
// uncontended: one client, one thread: acquire + release on one lock, as fast as it goes.
// contended:   waiters + 1 threads, each with its own client (session), loop acquire +
//              release on one lock: while one holds, `waiters` wait. Every acquisition is a
//              handoff from the previous holder.
// Prints "round <i> <acquisitions> <seconds>" per round and "result <acquisitions per second,
// median of the rounds>".
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorBench {
  private String connect;
  private String path;
  private String mode = "uncontended";
  private double seconds = 3;
  private double warmupSeconds = 1;
  private int rounds = 3;
  private int waiters = 8;

  public static void main(String[] args) throws Exception {
    CuratorBench bench = new CuratorBench();
    for (int i = 0; i + 1 < args.length; i += 2) {
      String value = args[i + 1];
      switch (args[i]) {
        case "--connect": bench.connect = value; break;
        case "--path": bench.path = value; break;
        case "--mode": bench.mode = value; break;
        case "--seconds": bench.seconds = Double.parseDouble(value); break;
        case "--warmup-seconds": bench.warmupSeconds = Double.parseDouble(value); break;
        case "--rounds": bench.rounds = Integer.parseInt(value); break;
        case "--waiters": bench.waiters = Integer.parseInt(value); break;
        default:
          System.err.println("CuratorBench: unknown option " + args[i]);
          System.exit(64);
      }
    }
    if (bench.connect == null || bench.path == null) {
      System.err.println("CuratorBench: --connect and --path are required");
      System.exit(64);
    }
    try {
      bench.run();
      System.exit(0);
    } catch (Exception e) {
      System.err.println("CuratorBench: " + e);
      e.printStackTrace();
      System.exit(1);
    }
  }

  private CuratorFramework newClient() throws Exception {
    CuratorFramework client = CuratorFrameworkFactory.builder()
        .connectString(connect)
        .sessionTimeoutMs(10000)
        .connectionTimeoutMs(10000)
        .retryPolicy(new ExponentialBackoffRetry(50, 10, 1000))
        .build();
    client.start();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("could not connect to " + connect);
    }
    return client;
  }

  private void run() throws Exception {
    int threads = mode.equals("contended") ? waiters + 1 : 1;
    List<CuratorFramework> clients = new ArrayList<>();
    for (int i = 0; i < threads; ++i) clients.add(newClient());
    measure(clients, warmupSeconds);  // the JIT warms up
    List<Double> rates = new ArrayList<>();
    for (int round = 1; round <= rounds; ++round) {
      long start = System.nanoTime();
      long count = measure(clients, seconds);
      double elapsed = (System.nanoTime() - start) / 1e9;
      System.out.println("round " + round + " " + count + " " + elapsed);
      rates.add(count / elapsed);
    }
    Collections.sort(rates);
    int n = rates.size();
    double median = n % 2 == 1 ? rates.get(n / 2) : (rates.get(n / 2 - 1) + rates.get(n / 2)) / 2;
    System.out.println("result " + median);
    System.out.flush();
    for (CuratorFramework client : clients) client.close();
  }

  // Acquisitions completed by all threads within `duration` seconds.
  private long measure(List<CuratorFramework> clients, double duration) throws Exception {
    AtomicLong count = new AtomicLong();
    AtomicBoolean failed = new AtomicBoolean();
    long deadline = System.nanoTime() + (long) (duration * 1e9);
    List<Thread> workers = new ArrayList<>();
    for (CuratorFramework client : clients) {
      Thread worker = new Thread(() -> {
        InterProcessMutex lock = new InterProcessMutex(client, path);
        try {
          while (System.nanoTime() < deadline) {
            lock.acquire();
            boolean inTime = System.nanoTime() < deadline;
            lock.release();
            if (inTime) count.incrementAndGet();
          }
        } catch (Exception e) {
          System.err.println("CuratorBench: " + e);
          failed.set(true);
        }
      });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) worker.join();
    if (failed.get()) throw new IllegalStateException("a worker failed");
    return count.get();
  }
}
