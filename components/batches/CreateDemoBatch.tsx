'use client';
// "Create demo staged batch": stages of 4, 2, 1, 2 and 1 sleeps, at most 3 at once; opens its page.
import { useCanOperate } from '../role';
import { useRouter } from 'next/navigation';
import { createDemoBatch } from '@/app/actions';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';

function CreateDemoBatchControl({ variant = 'primary' }: { variant?: 'primary' | 'secondary' }) {
  const router = useRouter();
  const create = useAction(createDemoBatch, { success: (r) => `Batch ${r.id} created: 10 tasks in 5 stages, at most 3 at once` });
  return (
    <Button
      variant={variant}
      busy={create.busy}
      data-testid="create-demo-batch"
      title="Stages of 4, 2, 1, 2 and 1 demo.sleep tasks of 1–4 s on queue etl, at most 3 running at once, released at once"
      onClick={async () => {
        const r = await create.run();
        if (r.ok) router.push(`/batches/${r.id}`);
      }}
    >
      Create demo staged batch
    </Button>
  );
}

/** the operator's control; a viewer sees nothing */
export function CreateDemoBatch(props: { variant?: 'primary' | 'secondary' }) {
  return useCanOperate() ? <CreateDemoBatchControl {...props} /> : null;
}
