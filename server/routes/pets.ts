import type { Plugin, Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { contract } from '../contract.ts';
import { apiError, ErrorCodes } from '../errors.ts';
import { rejectInvalid } from '../plugins/errors.ts';
import { listQuerySchema, newPetSchema, petIdParamsSchema } from '../pets/validation.ts';
import { InvalidCursorError, PetService, type ListRequest } from '../pets/service.ts';
import type { NewPet } from '../types.ts';

export interface PetRoutesOptions {
  service: PetService;
}

const base = contract.basePath;

/** `Link: <...>; rel="next"` (RFC 8288) to the next page, keeping the request's filters. */
function nextLink(query: ListRequest, cursor: string): string {
  const params = new URLSearchParams({ limit: String(query.limit) });
  if (query.status) params.set('status', query.status);
  params.set('cursor', cursor);
  return `<${base}/pets?${params}>; rel="next"`;
}

function methodNotAllowed(allowed: string) {
  return (request: Request) => {
    throw apiError(405, ErrorCodes.methodNotAllowed, `${request.method.toUpperCase()} is not allowed on ${request.path}; allowed: ${allowed}.`, {
      Allow: allowed,
    });
  };
}

export const petRoutes: Plugin<PetRoutesOptions> = {
  name: 'pet-routes',
  version: '1.0.0',
  register(server, { service }) {
    const routes: ServerRoute[] = [
      {
        method: 'GET',
        path: `${base}/pets`,
        options: {
          id: 'listPets',
          validate: { query: listQuerySchema, options: { allowUnknown: true, abortEarly: false }, failAction: rejectInvalid(ErrorCodes.invalidParameter) },
          async handler(request: Request, h: ResponseToolkit) {
            const query = request.query as unknown as ListRequest;
            try {
              const page = await service.list(query);
              const response = h.response(page.pets);
              if (page.nextCursor) response.header('Link', nextLink(query, page.nextCursor));
              return response;
            } catch (error) {
              if (error instanceof InvalidCursorError) throw apiError(400, ErrorCodes.invalidParameter, error.message);
              throw error;
            }
          },
        },
      },
      {
        method: 'POST',
        path: `${base}/pets`,
        options: {
          id: 'createPet',
          validate: {
            payload: newPetSchema,
            options: { stripUnknown: true, abortEarly: false },
            failAction: rejectInvalid(ErrorCodes.invalidBody),
          },
          async handler(request: Request, h: ResponseToolkit) {
            const pet = await service.create(request.payload as NewPet);
            return h.response(pet).code(201).header('Location', `${base}/pets/${pet.id}`);
          },
        },
      },
      {
        method: 'GET',
        path: `${base}/pets/{petId}`,
        options: {
          id: 'getPet',
          plugins: {
            // Read by the deprecation plugin: the route says it is deprecated, no path check does.
            deprecation: {
              since: '2025-12-05T00:00:00Z',
              sunset: '2030-12-05T00:00:00Z',
              replacement: `${base}/pets?status=available`,
            },
          },
          validate: { params: petIdParamsSchema, failAction: rejectInvalid(ErrorCodes.invalidParameter) },
          async handler(request: Request) {
            const raw = request.params.petId as string;
            const pet = await service.get(Number(raw));
            if (!pet) throw apiError(404, ErrorCodes.petNotFound, `Pet ${raw} was not found.`);
            return pet;
          },
        },
      },
      { method: '*', path: `${base}/pets`, options: { auth: false, handler: methodNotAllowed('GET, HEAD, POST') } },
      { method: '*', path: `${base}/pets/{petId}`, options: { auth: false, handler: methodNotAllowed('GET, HEAD') } },
    ];
    server.route(routes);
  },
};
